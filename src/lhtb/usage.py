"""Token and cost accounting for agent turns."""

from __future__ import annotations

import attrs

__all__ = ["Usage", "UsageRecorder"]


def _add_optional(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


@attrs.frozen
class Usage:
    """Totals of model usage. ``cost_usd`` is ``None`` when any price was unknown."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = 0.0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost_usd=_add_optional(self.cost_usd, other.cost_usd),
        )


@attrs.define
class UsageRecorder:
    """Where an agent reports each model call. Recording is synchronous, so a
    turn cancelled at the deadline never loses what it already recorded."""

    total: Usage = attrs.field(factory=Usage)
    models: set[str] = attrs.field(factory=set)

    def record(
        self,
        *,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        cached_tokens: int = 0,
        cost_usd: float | None = None,
        model: str | None = None,
    ) -> None:
        """Add one model call. Pass ``cost_usd=None`` when the price is unknown."""
        self.total = self.total + Usage(
            calls=1,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cached_tokens=cached_tokens,
            cost_usd=cost_usd,
        )
        if model:
            self.models.add(model)
