"""Staging a task's reference solution for agents that use it (the oracle).

Harbor uploads ``solution/`` to ``/solution`` as root and then runs
``solve.sh`` as the task's agent user; an agent confined to ``[agent].user``
cannot create ``/solution`` itself. An agent class that sets
``uses_solution = True`` gets the same: before each of its turns the harness
copies the solution (the current step's, in a multi-step task) to
``/solution``, owned by root, readable by everyone, ``solve.sh`` executable.
"""

from __future__ import annotations

from pathlib import Path

from lhtb.errors import SandboxError
from lhtb.sandbox.archive import pack_directory
from lhtb.sandbox.base import ManagedSandbox

__all__ = ["SOLUTION_DIR", "stage_solution", "uses_solution"]

SOLUTION_DIR = "/solution"
_SOLVE = f"{SOLUTION_DIR}/solve.sh"
_TIMEOUT_SEC = 120.0


def uses_solution(agent: object) -> bool:
    """True when ``agent`` asks the harness to stage the task's solution."""
    return getattr(agent, "uses_solution", False) is True


async def stage_solution(sandbox: ManagedSandbox, solution_dir: Path) -> None:
    """Copy ``solution_dir`` to ``/solution`` as root (readable by all, scripts executable).

    Raises:
        SandboxError: the copy or the permission change failed.
    """
    await sandbox.import_(pack_directory(solution_dir, SOLUTION_DIR), dest="/")
    result = await sandbox.exec(
        f"chmod -R a+rX {SOLUTION_DIR} && {{ [ ! -f {_SOLVE} ] || chmod a+x {_SOLVE}; }}",
        timeout=_TIMEOUT_SEC,
        user="root",
    )
    if not result.ok:
        raise SandboxError(
            f"could not make {SOLUTION_DIR} readable: {result.stderr_text.strip()[-300:]}",
            where=str(solution_dir),
            fix="Check that the image has chmod (coreutils or busybox)",
        )
