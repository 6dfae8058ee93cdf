"""Fixtures of the session tests."""

from __future__ import annotations

import pytest


@pytest.fixture(params=[pytest.param("docker", marks=pytest.mark.docker), "local"])
def backend_name(request: pytest.FixtureRequest) -> str:
    """Each built-in backend by its CLI name (``--backend``), checked usable here."""
    if request.param == "local":
        request.getfixturevalue("local_backend")  # skips, or fails under CI=true
    name: str = request.param
    return name
