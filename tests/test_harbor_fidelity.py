"""Harbor-format fixture tasks score in lhtb what they score in Harbor (real Docker).

Each task under ``tests/fixtures/harbor/`` isolates one Harbor behaviour and
builds offline from ``debian:bookworm-slim`` (or a Python base made from it by
``lhtb images bootstrap``). The oracle runs each one; the reward must be the one
Harbor gives (see the table in docs/task-format.md, "Harbor compatibility").
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lhtb
from lhtb.agents.oracle import OracleAgent
from lhtb.sandbox.local import LocalBackend

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "harbor"
HARBOR_REWARDS = {
    "entrypoint-service": 1.0,
    "compose-base-merge": 1.0,
    "compose-file-is-data": 1.0,
    "compose-logs-mount": 1.0,
    "compose-prebuilt-main": 1.0,
    "python-slim-base": 1.0,
    "task-package-keys": 1.0,
    "network-mode": 1.0,
}
"""The reward Harbor gives each fixture with its oracle solution (compose-logs-mount:
Harbor 0.5's, whose variables the task is written for; see its task.toml)."""
LOCAL_REWARDS = {"compose-file-is-data": 1.0, "task-package-keys": 1.0, "network-mode": 1.0}
"""Fixtures the local backend runs; it refuses compose environments (Docker only) rather
than score them wrongly, and ignores ENTRYPOINT (see docs/backends.md)."""


def test_every_fixture_listed_here_exists() -> None:
    found = {p.name for p in FIXTURES.iterdir() if (p / "task.toml").is_file()}
    assert set(HARBOR_REWARDS) <= found


@pytest.mark.docker
@pytest.mark.parametrize("name", sorted(HARBOR_REWARDS))
async def test_fixture_scores_as_in_harbor(name: str, tmp_path: Path) -> None:
    task = lhtb.load_task(FIXTURES / name)
    episode = await lhtb.run_episode(
        task,
        OracleAgent(task),
        backend="docker",
        budget=300,
        continue_until_timeout=False,
        output_dir=tmp_path / "episode",
        run_id=f"harbor-fidelity-{name}",
    )
    assert episode.reward == HARBOR_REWARDS[name], (
        f"{name}: {episode.outcome} {episode.error or ''} (see {tmp_path / 'episode'})"
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LOCAL_REWARDS))
async def test_fixture_scores_as_in_harbor_locally(
    name: str, tmp_path: Path, local_backend: LocalBackend
) -> None:
    task = lhtb.load_task(FIXTURES / name)
    episode = await lhtb.run_episode(
        task,
        OracleAgent(task),
        backend=local_backend,
        budget=300,
        continue_until_timeout=False,
        output_dir=tmp_path / "episode",
    )
    assert episode.reward == LOCAL_REWARDS[name], f"{name}: {episode.outcome} {episode.error}"


@pytest.mark.slow
async def test_local_refuses_a_compose_environment_beside_a_dockerfile(
    tmp_path: Path, local_backend: LocalBackend
) -> None:
    task = lhtb.load_task(FIXTURES / "compose-base-merge")
    episode = await lhtb.run_episode(
        task,
        OracleAgent(task),
        backend=local_backend,
        budget=300,
        continue_until_timeout=False,
        output_dir=tmp_path / "episode",
    )
    assert episode.reward is None
    assert not episode.retryable
    assert episode.error is not None
    assert "compose environments need Docker" in episode.error
