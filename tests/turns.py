"""A turn made by hand, for tests that drive an agent or a session without an episode."""

from __future__ import annotations

import anyio
import structlog

import lhtb
from lhtb.sandbox.base import ManagedSandbox


def first_turn(task: lhtb.Task, sandbox: ManagedSandbox, *, budget_sec: float) -> lhtb.Turn:
    """Turn 1 of ``task`` on the agent's view of ``sandbox``, ending ``budget_sec`` from now."""
    return lhtb.Turn(
        instruction=task.instruction,
        sandbox=sandbox.agent_view(),
        number=1,
        deadline=anyio.current_time() + budget_sec,
        usage=lhtb.UsageRecorder(),
        log=structlog.get_logger(),
        task_name=task.name,
    )
