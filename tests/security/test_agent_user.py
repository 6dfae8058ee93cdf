"""``[agent].user`` is a boundary: an agent of a task that sets it cannot ask its
sandbox to run a command as anyone else (root, to write where its user may not)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

import lhtb
from lhtb.errors import ExecError
from lhtb.sandbox.base import SandboxBackend

from ._attack import AttackAgent, run_modes

pytestmark = [pytest.mark.anyio]


class ExecAsRoot(AttackAgent):
    """Its user may not write /app; it asks for root to write the answer there."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException] = []

    async def setup(self, turn: lhtb.Turn) -> None:
        denied = await self.sh(turn, "echo 42 > /app/answer.txt")
        assert not denied.ok, "the agent's user could write /app: the attack proves nothing"
        for user in ("root", 0):
            try:
                await self.sh(turn, "echo 42 > /app/answer.txt", user=user)
            except Exception as error:  # the agent sees whatever the sandbox raises
                self.errors.append(error)


def _refused_with_exec_error(episode: lhtb.Episode, agent: AttackAgent, mode: str) -> None:
    del episode, mode
    assert isinstance(agent, ExecAsRoot)
    assert len(agent.errors) == 2, agent.errors
    assert all(isinstance(e, ExecError) for e in agent.errors), agent.errors


async def test_exec_as_root(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    task = attrs.evolve(attack_task, agent=attrs.evolve(attack_task.agent, user="nobody"))
    await run_modes(
        "agent-exec-as-root",
        backend,
        task,
        ExecAsRoot,
        tmp_path,
        run_id,
        honest=0.0,
        max_passes=1,
        check=_refused_with_exec_error,
    )
