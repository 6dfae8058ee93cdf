"""The nop agent: stops at once. A task must not be solvable by doing nothing."""

from __future__ import annotations

from lhtb.agents._protocol import Turn

__all__ = ["NopAgent"]


class NopAgent:
    """Does nothing and returns."""

    name = "nop"

    async def run(self, turn: Turn) -> None:
        """Return immediately."""
