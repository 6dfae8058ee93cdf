"""Timing attacks: farming one bit per verifier pass by stopping in a loop, processes
that keep writing after the budget ends, and an agent coroutine that ignores
cancellation."""

from __future__ import annotations

import itertools
from pathlib import Path

import anyio
import pytest

import lhtb
from lhtb.episode._runner import AGENT_CANCEL_GRACE_SEC
from lhtb.sandbox.base import SandboxBackend

from ._attack import AttackAgent, run_modes

pytestmark = [pytest.mark.anyio]

SPACING = 2.0
BUDGET = 9.0


class StopSpammer(AttackAgent):
    """Stops as fast as it can, every turn, to read one bit per pass."""

    answer = "41"

    async def resume(self, turn: lhtb.Turn) -> None:
        return


def _spacing_holds(limit: int | None) -> object:
    def check(episode: lhtb.Episode, agent: AttackAgent, mode: str) -> None:
        del agent, mode
        interim = [p for p in episode.passes if not p.final]
        if limit is not None:
            assert len(episode.passes) <= limit
        else:
            assert len(episode.passes) <= BUDGET / SPACING + 2
        for before, after in itertools.pairwise(interim):
            gap = (after.started_at - before.started_at).total_seconds() - before.duration_sec
            assert gap >= SPACING - 0.05, f"passes {before.number},{after.number} {gap:.2f}s apart"

    return check


@pytest.mark.parametrize("max_passes", [3, None])
async def test_stop_spam(
    backend: SandboxBackend,
    attack_task: lhtb.Task,
    tmp_path: Path,
    run_id: str,
    max_passes: int | None,
) -> None:
    await run_modes(
        f"stop-spam-{'max-passes' if max_passes else 'min-interval'}",
        backend,
        attack_task,
        StopSpammer,
        tmp_path,
        run_id,
        honest=0.25,
        check=_spacing_holds(max_passes),  # type: ignore[arg-type]
        budget=BUDGET,
        max_passes=max_passes if max_passes else 10_000,
        min_pass_interval_sec=SPACING,
    )


SPOIL_AFTER_DEADLINE_SEC = 3.0
"""A late writer starts this long after the deadline: ample for the freeze, which follows
the deadline within a fraction of a second even on a busy machine."""
VERIFY_SLEEP = SPOIL_AFTER_DEADLINE_SEC + 5.0
"""How long each verification is stretched, so that an unfrozen late writer surely spoils
the answer before the tests read it (see test_protections_matter)."""
LATE_BUDGET = 10.0
ARMED = "/opt/atk/late-writer-armed"


class LateWriter(AttackAgent):
    """Right answer, then a process that spoils it from just after the deadline on."""

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
        self.armed = True  # the writer runs, and waits for the deadline
        await anyio.sleep(3600)


def was_armed(episode: lhtb.Episode, agent: AttackAgent, mode: str) -> None:
    del episode, mode
    assert getattr(agent, "armed", False), "the late writer never started"


async def test_processes_writing_after_the_budget(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    await run_modes(
        "write-after-budget",
        backend,
        attack_task,
        LateWriter,
        tmp_path,
        run_id,
        honest=1.0,
        check=was_armed,
        verify_sleep=VERIFY_SLEEP,
        budget=LATE_BUDGET,
    )


class IgnoresCancellation(AttackAgent):
    """Writes the right answer, then swallows every cancellation and keeps trying to spoil
    it through the sandbox API long after its budget (it gives up eventually, so that the
    test process can exit)."""

    answer = "42"

    def __init__(self) -> None:
        super().__init__()
        self.late_writes = 0
        self.refused = 0

    async def setup(self, turn: lhtb.Turn) -> None:
        give_up = turn.deadline + AGENT_CANCEL_GRACE_SEC + 2
        while anyio.current_time() < give_up:
            try:
                await anyio.sleep(0.1)
                if anyio.current_time() > turn.deadline:
                    await turn.sandbox.write_file("/app/answer.txt", "0\n")
                    self.late_writes += 1
            except anyio.get_cancelled_exc_class():
                continue  # the attack: ignore the harness
            except lhtb.errors.LhtbError:
                self.refused += 1


def _ended_on_time(episode: lhtb.Episode, agent: AttackAgent, mode: str) -> None:
    del mode
    assert isinstance(agent, IgnoresCancellation)
    assert agent.refused > 0  # it did keep trying after its turn
    assert agent.late_writes == 0
    assert episode.turns[0].end is lhtb.episode.TurnEnd.DEADLINE
    assert "abandoned" in (episode.turns[0].error or "")


async def test_agent_ignoring_cancellation(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    """The episode ends although the agent does not (exact timings are proven on the fake
    backend and virtual clock: tests/test_runner_fake.py)."""
    await run_modes(
        "ignore-cancellation",
        backend,
        attack_task,
        IgnoresCancellation,
        tmp_path,
        run_id,
        honest=1.0,
        check=_ended_on_time,
        budget=4,
    )
