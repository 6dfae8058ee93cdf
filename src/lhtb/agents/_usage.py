"""Token and cost accounting for agent turns."""

from __future__ import annotations

import math
from typing import Any

import attrs

__all__ = ["Usage", "UsageRecorder"]


def _add_optional(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _cost(_: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{attribute.name} must be None (unknown) or >= 0, got {value!r}")


_COUNT = [attrs.validators.instance_of(int), attrs.validators.ge(0)]


@attrs.frozen
class Usage:
    """Totals of model usage. ``cost_usd`` is ``None`` when any price was unknown."""

    calls: int = attrs.field(default=0, validator=_COUNT)
    prompt_tokens: int = attrs.field(default=0, validator=_COUNT)
    completion_tokens: int = attrs.field(default=0, validator=_COUNT)
    cached_tokens: int = attrs.field(default=0, validator=_COUNT)
    cost_usd: float | None = attrs.field(default=0.0, validator=_cost)

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
        """Add one model call. Pass ``cost_usd=None`` when the price is unknown.

        Raises:
            ValueError: a negative token count, or a cost that is negative or not finite.
        """
        self.total = self.total + Usage(
            calls=1,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cached_tokens=cached_tokens,
            cost_usd=cost_usd,
        )
        if model:
            self.models.add(model)
