"""Shared fixtures. Docker tests skip without a daemon, but fail under CI=true."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

collect_ignore = ["fixtures"]

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _docker_client() -> object | None:
    try:
        import docker

        client = docker.from_env(timeout=120)
        client.ping()
    except Exception:
        return None
    return client


@pytest.fixture(scope="session")
def docker_client() -> Iterator[object]:
    """A connected docker SDK client; skip (or fail under CI=true) without a daemon."""
    client = _docker_client()
    if client is None:
        message = "no reachable Docker daemon"
        if IN_CI:
            pytest.fail(f"{message}, and CI=true: Docker tests must run in CI")
        pytest.skip(message)
    return client


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test marked ``docker`` the ``docker_client`` fixture."""
    for item in items:
        if item.get_closest_marker("docker") and "docker_client" not in getattr(
            item, "fixturenames", ()
        ):
            item.fixturenames.append("docker_client")  # type: ignore[attr-defined]
