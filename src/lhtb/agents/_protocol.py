"""The Agent protocol and the Turn an agent receives.

An agent is any object with ``async def run(self, turn: Turn) -> None``.
Returning means "I am done": the harness then runs a hidden verifier pass.
When the task continues until timeout and the pass fails, the agent gets a new
:class:`Turn` whose ``feedback`` holds the rejection. At the deadline the
harness cancels ``run``; agents must let cancellation through.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import anyio
import attrs

from lhtb.agents._usage import UsageRecorder
from lhtb.sandbox.base import Sandbox

__all__ = ["Agent", "AgentFactory", "AgentLike", "Turn"]


@attrs.frozen
class Turn:
    """Everything one agent turn gets.

    ``deadline`` is on the :func:`anyio.current_time` clock; use
    :attr:`remaining_sec` rather than comparing clocks yourself.
    """

    instruction: str
    sandbox: Sandbox
    number: int
    deadline: float
    usage: UsageRecorder
    log: Any
    feedback: str | None = None
    task_name: str = ""
    episode_dir: Path | None = None
    """The episode's output directory, for agent records such as ``trajectory.json``."""

    @property
    def remaining_sec(self) -> float:
        """Seconds left in the episode budget (never negative)."""
        return max(0.0, self.deadline - anyio.current_time())

    @property
    def is_resumed(self) -> bool:
        """True on every turn after a rejected verifier pass."""
        return self.feedback is not None


@runtime_checkable
class Agent(Protocol):
    """What lhtb runs. Implement ``run``; return when the task is done."""

    async def run(self, turn: Turn) -> None:
        """Work on the task in ``turn.sandbox`` until done or cancelled."""
        ...


AgentFactory = Callable[[], Agent]
"""Makes a fresh agent (used once per episode, or once per turn in restart mode)."""

AgentLike = Agent | Callable[..., Any]
"""Anything lhtb accepts as an agent: an :class:`Agent` instance, an agent class, a
zero-argument factory, a ``task -> agent`` factory, or an ``async def agent(turn)``."""
