"""Harbor behaviour fixtures (``tests/fixtures/harbor/``): each scores what Harbor gives it.

Live verification (the agent's services answer the tests), the oracle under
``[agent].user``, and ``tests/Dockerfile`` as the separate verifier's image,
each on Docker and on the local backend. The reward each asserts is the one
Harbor 0.26 gives the same task with its oracle.
"""

from __future__ import annotations

import os
import shutil
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

import lhtb
from lhtb.agents import OracleAgent
from lhtb.errors import BackendUnavailableError
from lhtb.sandbox.base import SandboxBackend
from lhtb.sandbox.docker import DockerBackend
from lhtb.sandbox.local import LocalBackend, check_host

pytestmark = [pytest.mark.anyio]

FIXTURES = Path(__file__).parent / "fixtures" / "harbor"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
HARBOR_ORACLE_REWARD = {
    "live-service": 1.0,
    "multi-step": 0.75,
    "oracle-agent-user": 1.0,
    "verifier-dockerfile": 1.0,
}
"""What Harbor's oracle scores on each fixture (Harbor 0.26 on Docker gave exactly these;
see docs/task-format.md, Harbor compatibility)."""


@pytest.fixture(scope="module")
def docker_backend() -> DockerBackend:
    return DockerBackend()


@pytest.fixture(scope="module")
def local_backend() -> LocalBackend:
    try:
        check_host()
    except BackendUnavailableError as error:
        if IN_CI:
            pytest.fail(f"the local backend cannot run here, and CI=true: {error}")
        pytest.skip(str(error))
    return LocalBackend()


@pytest.fixture
def run_id() -> str:
    return f"test-harbor-{uuid.uuid4().hex[:10]}"


@pytest.fixture(params=["docker", "local"])
def backend(request: pytest.FixtureRequest, run_id: str) -> Iterator[SandboxBackend]:
    """Each fixture runs on both backends; nothing of the run may be left behind."""
    if request.param == "docker":
        client: Any = request.getfixturevalue("docker_client")
        yield request.getfixturevalue("docker_backend")
        label = {"label": f"lhtb.run={run_id}"}
        assert client.containers.list(all=True, filters=label) == []
    else:
        yield request.getfixturevalue("local_backend")


async def run_oracle(
    name: str, backend: SandboxBackend, run_id: str, tmp_path: Path
) -> lhtb.Episode:
    task = lhtb.load_task(FIXTURES / name)
    return await lhtb.run_episode(
        task, OracleAgent(task), backend=backend, run_id=run_id, output_dir=tmp_path
    )


@pytest.mark.parametrize("name", sorted(HARBOR_ORACLE_REWARD))
async def test_oracle_scores_what_harbor_gives(
    name: str, backend: SandboxBackend, run_id: str, tmp_path: Path
) -> None:
    episode = await run_oracle(name, backend, run_id, tmp_path)
    stdout = sorted(tmp_path.glob("verifier/pass-*/test-stdout.txt"))
    detail = (episode.error, [p.error for p in episode.passes], [p.read_text() for p in stdout])
    assert episode.reward == HARBOR_ORACLE_REWARD[name], detail


async def test_live_service_scores_zero_when_frozen(
    backend: SandboxBackend, run_id: str, tmp_path: Path
) -> None:
    """The fixture tells live from frozen: with ``live = false`` the service is stopped."""
    task = lhtb.load_task(FIXTURES / "live-service")
    assert lhtb.task.verifies_live(task)  # Harbor's default for a single-shot shared task
    frozen = attrs.evolve(task, verifier=attrs.evolve(task.verifier, live=False))
    episode = await lhtb.run_episode(
        frozen, OracleAgent(frozen), backend=backend, run_id=run_id, output_dir=tmp_path
    )
    assert not episode.config.live_verification
    assert episode.reward == 0.0, (episode.error, [p.error for p in episode.passes])


async def test_multi_step_records_each_step(
    backend: SandboxBackend, run_id: str, tmp_path: Path
) -> None:
    episode = await run_oracle("multi-step", backend, run_id, tmp_path)
    steps = [(s.name, s.turn, s.pass_number, s.reward, s.error) for s in episode.steps]
    assert steps == [("write", 1, 1, 1.0, None), ("extend", 2, 2, 0.5, None)], episode.error
    assert [t.number for t in episode.turns] == [1, 2]
    assert [p.final for p in episode.passes] == [False, True]
    assert (episode.reward, str(episode.outcome)) == (0.75, "unsolved")
    saved = lhtb.Episode.load(tmp_path / "episode.json")
    assert saved.steps == episode.steps


async def test_multi_step_stops_below_min_reward(
    backend: SandboxBackend, run_id: str, tmp_path: Path
) -> None:
    """Harbor's abort rule: the first step's reward is below its min_reward, so it ends there
    (Harbor 0.26's nop agent gets the same: reward 0.0 after the one step)."""
    task = lhtb.load_task(FIXTURES / "multi-step")
    episode = await lhtb.run_episode(
        task, lhtb.agents.NopAgent(), backend=backend, run_id=run_id, output_dir=tmp_path
    )
    assert [(s.name, s.reward) for s in episode.steps] == [("write", 0.0)]
    assert episode.steps[0].error is not None
    assert "min_reward" in episode.steps[0].error
    assert (episode.reward, len(episode.turns)) == (0.0, 1)


async def test_multi_step_budgets_may_come_from_the_steps_alone(
    backend: SandboxBackend, run_id: str, tmp_path: Path
) -> None:
    task_dir = tmp_path / "task"
    shutil.copytree(FIXTURES / "multi-step", task_dir)
    (task_dir / "task.toml").write_text(
        textwrap.dedent(
            """\
            [[steps]]
            name = "write"
            agent = { timeout_sec = 60 }

            [[steps]]
            name = "extend"
            agent = { timeout_sec = 90 }
            verifier = { env = { EXPECTED_LINES = "2" } }
            """
        )
    )
    task = lhtb.load_task(task_dir)
    assert task.agent.timeout_sec is None
    episode = await lhtb.run_episode(
        task, OracleAgent(task), backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
    )
    assert [s.reward for s in episode.steps] == [1.0, 0.5], episode.error
