"""Each protection is load-bearing: with it removed, the attack that the suite runs
against it succeeds. (If one of these starts failing, the suite has stopped testing
what it claims to.)"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import lhtb
from lhtb.episode._turn_gate import GatedSandbox
from lhtb.sandbox.docker import DockerSandbox

from ._attack import MARK, SECRET, AttackAgent, task_for
from .conftest import make_backend
from .test_artifacts import LinkToVerifierFile
from .test_timing import (
    ARMED,
    LATE_BUDGET,
    SPOIL_AFTER_DEADLINE_SEC,
    VERIFY_SLEEP,
    IgnoresCancellation,
    LateWriter,
)

pytestmark = [pytest.mark.anyio, pytest.mark.docker]


async def _run(
    task: lhtb.Task, agent: AttackAgent, tmp: Path, run_id: str, **kw: object
) -> lhtb.Episode:
    backend = kw.pop("backend", None) or make_backend("docker")
    return await lhtb.run_episode(
        task,
        agent,
        backend=backend,
        run_id=run_id,
        output_dir=tmp,
        **kw,  # type: ignore[arg-type]
    )


async def test_without_freeze_a_late_writer_spoils_the_final_verification(
    attack_task: lhtb.Task, tmp_path: Path, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_op(self: DockerSandbox) -> None:
        return None

    monkeypatch.setattr(DockerSandbox, "freeze", no_op)
    monkeypatch.setattr(DockerSandbox, "thaw", no_op)
    task = task_for(attack_task, "shared", verify_sleep=VERIFY_SLEEP)
    agent = LateWriter()
    episode = await _run(task, agent, tmp_path, run_id, budget=LATE_BUDGET)
    assert agent.armed
    assert episode.reward is not None
    assert episode.reward < 1.0


FAKE_SH = (
    "#!/usr/lib/.real-dash\n"
    f"# {MARK}\n"
    'case "$2" in *"kill -STOP"*) echo 1; exit 0 ;; esac\n'  # "frozen" (nothing was)
    'exec /usr/lib/.real-dash "$@"\n'
)


class ShDefeatsInContainerFreeze(AttackAgent):
    """A late writer that also replaces ``/bin/sh`` with a shell that skips the
    in-container freeze sweep (reporting success) and runs everything else."""

    answer = "42"

    def __init__(self) -> None:
        super().__init__()
        self.armed = False

    async def setup(self, turn: lhtb.Turn) -> None:
        delay = turn.remaining_sec + SPOIL_AFTER_DEADLINE_SEC
        await self.spawn(
            turn,
            f"touch {ARMED}; sleep {delay:.2f}; while :; do echo 0 > /app/answer.txt; done",
        )
        await self.wait_for_file(turn, ARMED)
        self.armed = True
        await self.sh(turn, "cp /bin/dash /usr/lib/.real-dash")
        await turn.sandbox.write_file("/tmp/fake", FAKE_SH, mode=0o755)
        await turn.sandbox.exec(["/usr/lib/.real-dash", "-c", "mv -f /tmp/fake /bin/dash"])
        await anyio.sleep(3600)


@pytest.mark.parametrize("host_freeze", [True, False])
async def test_host_side_freeze_survives_a_replaced_shell(
    attack_task: lhtb.Task, tmp_path: Path, run_id: str, host_freeze: bool
) -> None:
    backend = make_backend("docker", host_freeze=host_freeze)
    task = task_for(attack_task, "shared", verify_sleep=VERIFY_SLEEP)
    agent = ShDefeatsInContainerFreeze()
    episode = await _run(task, agent, tmp_path, run_id, budget=LATE_BUDGET, backend=backend)
    assert agent.armed
    if host_freeze:
        assert episode.reward == 1.0  # the host stopped the writer before the tests ran
    else:
        assert episode.reward is not None
        assert episode.reward < 1.0


async def test_without_artifact_confinement_a_link_reads_the_hidden_answer(
    attack_task: lhtb.Task, tmp_path: Path, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lhtb.verify._verifier.confine", lambda archive, source: archive)
    task = task_for(attack_task, "separate")
    episode = await _run(task, LinkToVerifierFile(), tmp_path, run_id, max_passes=1)
    assert episode.reward == 1.0  # protected: refused, 0.0


async def test_without_the_turn_gate_a_runaway_coroutine_writes_after_its_budget(
    attack_task: lhtb.Task, tmp_path: Path, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GatedSandbox, "close", lambda self: None)
    agent = IgnoresCancellation()
    episode = await _run(task_for(attack_task, "separate"), agent, tmp_path, run_id, budget=4)
    assert agent.late_writes > 0
    assert episode.reward is not None
    assert episode.reward < 1.0


def test_the_secret_is_not_in_the_agent_code() -> None:
    """Sanity: no attack agent could 'see' the secret by echoing its own command."""
    import inspect

    from . import test_artifacts, test_forgery, test_leaks, test_resources, test_timing

    for module in (test_artifacts, test_forgery, test_leaks, test_resources, test_timing):
        assert SECRET not in inspect.getsource(module)
