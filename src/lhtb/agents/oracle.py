"""The oracle agent: runs the task's reference solution."""

from __future__ import annotations

from pathlib import Path

from lhtb.agent import Turn
from lhtb.errors import AgentLoadError
from lhtb.task import Task, resolve_env

__all__ = ["OracleAgent"]

SOLUTION_DIR = "/solution"
_LOG_TAIL = 4000


class OracleAgent:
    """Uploads ``solution/`` to ``/solution`` and runs ``solve.sh`` once."""

    name = "oracle"

    def __init__(self, task: Task) -> None:
        if task.solution_dir is None or not (task.solution_dir / "solve.sh").is_file():
            raise AgentLoadError(
                f"task {task.name!r} has no solution/solve.sh",
                where=str(task.path or task.name),
                fix="add solution/solve.sh, or run another agent",
            )
        self.task = task
        self.solution_dir: Path = task.solution_dir

    async def run(self, turn: Turn) -> None:
        """Upload the solution and run it under the remaining budget."""
        for path in sorted(p for p in self.solution_dir.rglob("*") if p.is_file()):
            target = f"{SOLUTION_DIR}/{path.relative_to(self.solution_dir).as_posix()}"
            await turn.sandbox.write_file(
                target, path.read_bytes(), mode=path.stat().st_mode & 0o777
            )
        env = {"DEBIAN_FRONTEND": "noninteractive", **resolve_env(self.task.solution.env)}
        result = await turn.sandbox.exec(
            ["sh", "-c", f"chmod +x {SOLUTION_DIR}/solve.sh && exec {SOLUTION_DIR}/solve.sh"],
            timeout=turn.remaining_sec,
            env=env,
        )
        turn.log.info(
            "oracle_finished",
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            stdout_tail=result.stdout_text[-_LOG_TAIL:],
            stderr_tail=result.stderr_text[-_LOG_TAIL:],
        )
