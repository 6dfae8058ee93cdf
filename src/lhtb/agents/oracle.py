"""The oracle agent: runs the task's reference solution."""

from __future__ import annotations

from pathlib import Path

from lhtb.agents._protocol import Turn
from lhtb.agents._solution import SOLUTION_DIR
from lhtb.errors import AgentLoadError
from lhtb.task._model import Task, resolve_env

__all__ = ["OracleAgent"]

_LOG_TAIL = 4000
_SOLVE = f"{SOLUTION_DIR}/solve.sh"


class OracleAgent:
    """Runs ``solve.sh`` once, as the task's agent user (as Harbor does).

    The harness stages ``solution/`` (a multi-step task's current
    ``steps/<name>/solution/``, else the task's) at ``/solution`` as root before
    each turn (``uses_solution``). Wrapped in another agent, the oracle copies
    the task's ``solution/`` itself when it finds nothing staged.
    """

    name = "oracle"
    uses_solution = True

    def __init__(self, task: Task) -> None:
        solutions = [step.solution_dir or task.solution_dir for step in task.steps] or [
            task.solution_dir
        ]
        if any(found is None or not (found / "solve.sh").is_file() for found in solutions):
            where = "steps/<name>/solution/solve.sh or " if task.steps else ""
            raise AgentLoadError(
                f"task {task.name!r} has no {where}solution/solve.sh",
                where=str(task.path or task.name),
                fix=f"add {where}solution/solve.sh, or run another agent",
            )
        self.task = task
        self.solution_dir: Path | None = task.solution_dir

    async def run(self, turn: Turn) -> None:
        """Run ``/solution/solve.sh`` under the remaining budget."""
        staged = await turn.sandbox.exec(["test", "-x", _SOLVE], timeout=60)
        if not staged.ok:
            await self._upload(turn)
        env = {"DEBIAN_FRONTEND": "noninteractive", **resolve_env(self.task.solution.env)}
        result = await turn.sandbox.exec([_SOLVE], timeout=turn.remaining_sec, env=env)
        turn.log.info(
            "oracle_finished",
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            stdout_tail=result.stdout_text[-_LOG_TAIL:],
            stderr_tail=result.stderr_text[-_LOG_TAIL:],
        )

    async def _upload(self, turn: Turn) -> None:
        if self.solution_dir is None:  # multi-step: the harness stages each step's solution
            return
        for path in sorted(p for p in self.solution_dir.rglob("*") if p.is_file()):
            target = f"{SOLUTION_DIR}/{path.relative_to(self.solution_dir).as_posix()}"
            mode = path.stat().st_mode & 0o777
            if target == _SOLVE:
                mode |= 0o755
            await turn.sandbox.write_file(target, path.read_bytes(), mode=mode)
