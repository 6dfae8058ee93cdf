"""Shared fixtures. Docker tests skip without a daemon, but fail under CI=true."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from lhtb.sandbox.base import SandboxBackend

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


@pytest.fixture(autouse=True)
def _docker_marker_needs_daemon(request: pytest.FixtureRequest) -> None:
    """A test marked ``docker`` gets the ``docker_client`` fixture (and its skip or failure).

    Resolved per test item, not by appending to ``item.fixturenames``: that list is
    shared by every parametrisation of a test, so the ``docker`` mark of one param
    (e.g. a Docker backend) would skip its siblings (the local backend) too.
    """
    if request.node.get_closest_marker("docker"):
        request.getfixturevalue("docker_client")


@pytest.fixture(scope="session")
def local_backend() -> object:
    """The local backend; skips where the host cannot run it, but fails under CI=true."""
    from lhtb.errors import BackendUnavailableError
    from lhtb.sandbox.local import LocalBackend, check_host

    try:
        check_host()
    except BackendUnavailableError as error:
        if IN_CI:
            pytest.fail(f"the local backend cannot run here, and CI=true: {error}")
        pytest.skip(str(error))
    return LocalBackend()


@pytest.fixture(params=[pytest.param("docker", marks=pytest.mark.docker), "local"])
def sandbox_backend(request: pytest.FixtureRequest) -> SandboxBackend:
    """Each built-in backend in turn: Docker (needs a daemon) and local."""
    if request.param == "docker":
        from lhtb.sandbox.docker import DockerBackend

        return DockerBackend(request.getfixturevalue("docker_client"))
    backend: SandboxBackend = request.getfixturevalue("local_backend")
    return backend
