"""Adapting a plain ``async def fn(turn)`` into an :class:`~lhtb.agents.Agent`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from lhtb.agents._forms import is_async_callable
from lhtb.agents._protocol import Turn

__all__ = ["CallableAgent", "from_callable"]

TurnFunction = Callable[[Turn], Awaitable[None]]


class CallableAgent:
    """An agent whose ``run`` calls ``fn(turn)``; ``name`` defaults to the function's name."""

    def __init__(self, fn: TurnFunction, *, name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__

    async def run(self, turn: Turn) -> None:
        """Await ``fn(turn)``. Cancellation and errors pass through unchanged."""
        await self.fn(turn)

    def __repr__(self) -> str:
        return f"CallableAgent({self.name!r})"


def from_callable(fn: TurnFunction, *, name: str | None = None) -> CallableAgent:
    """Wrap ``async def fn(turn) -> None`` as an agent.

    The function is called once per turn with the :class:`~lhtb.agents.Turn`;
    returning means "done". It is the same object every turn, so keep state in
    a closure or an object if it must carry over (``same_conversation``), or
    pass ``lambda: from_callable(fn)`` as the factory for ``restart`` mode.

    Raises:
        TypeError: ``fn`` is not an async function (a sync one would block the event loop).
    """
    if not is_async_callable(fn):
        raise TypeError(
            f"{fn!r} is not an async function; define it with `async def fn(turn) -> None`"
        )
    return CallableAgent(fn, name=name)
