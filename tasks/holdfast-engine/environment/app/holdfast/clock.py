"""Time management: how much of the referee's per-move budget to spend."""

from __future__ import annotations

from . import config

#: Milliseconds always kept back for process and pipe latency.
SAFETY_MS = 60


def plan_seconds(budget_ms: int, empties: int) -> float:
    """Seconds to think about one move given ``go <budget_ms>`` and the empty cells left.

    The planned share grows a little towards the end, where deeper search
    pays most, but never exceeds the configured fraction of the budget.
    """
    usable = max(0, budget_ms - SAFETY_MS)
    share = config.TIME_FRACTION
    if empties > 40:
        share *= 0.7
    elif empties > 24:
        share *= 0.9
    return max(0.005, usable * share / 1000.0)
