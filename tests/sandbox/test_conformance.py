"""The backend conformance suite (lhtb.sandbox.conformance) on Docker and local.

Docker runs need a daemon (skipped without one, failing under CI=true); local
runs fail rather than skip under CI=true when the host cannot run them.
"""

from __future__ import annotations

import os

import pytest

from lhtb.errors import BackendUnavailableError
from lhtb.sandbox.base import SandboxBackend
from lhtb.sandbox.conformance import *  # noqa: F403 - the shared tests and fixtures
from lhtb.sandbox.conformance import CONFORMANCE_DOCKERFILE, CONFORMANCE_PYTHON_DOCKERFILE
from lhtb.sandbox.local import LocalBackend, check_host

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(
    params=[
        "local",
        pytest.param("docker", marks=pytest.mark.docker),
        pytest.param("docker-channel", marks=pytest.mark.docker),
    ]
)
def conformance_backend(request: pytest.FixtureRequest) -> SandboxBackend:
    """``docker``: an image without python3, so the exec channel falls back to plain
    ``docker exec``; ``docker-channel``: the same image plus python3, commands go
    through the exec channel (``lhtb.sandbox.docker._channel``)."""
    if request.param.startswith("docker"):
        from lhtb.sandbox.docker import DockerBackend

        return DockerBackend(request.getfixturevalue("docker_client"))
    try:
        check_host()
    except BackendUnavailableError as error:
        if IN_CI:
            pytest.fail(f"the local backend cannot run here, and CI=true: {error}")
        pytest.skip(str(error))
    return LocalBackend()


@pytest.fixture
def conformance_dockerfile(request: pytest.FixtureRequest) -> str:
    if request.node.callspec.params.get("conformance_backend") == "docker-channel":
        return CONFORMANCE_PYTHON_DOCKERFILE
    return CONFORMANCE_DOCKERFILE
