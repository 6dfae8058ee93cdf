"""An episode's events on its budget clock, for the report's timeline and matrix.

The budget clock is the one the agent's budget is measured on: it starts with
the first turn and, when verifier time does not count, stands still during
verifier passes. Checkpoints and (in newer records) passes carry their time on
it; turns are placed from their wall-clock start.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Literal

import attrs

from lhtb.episode._record import Episode
from lhtb.verify._pass import PassOutcome
from lhtb.verify._scoring import Scorecard


@attrs.frozen
class Graded:
    """One grading of the agent's state: a verifier pass or a hidden checkpoint."""

    kind: Literal["pass", "checkpoint"]
    number: int
    elapsed_sec: float
    duration_sec: float
    """How long grading took (a checkpoint's grading runs beside the agent)."""
    reward: float | None
    scorecard: Scorecard | None
    status: str
    """The pass outcome, or ``graded``/``error`` for a checkpoint."""
    detail: str
    """One line for a tooltip: what was graded, when, how it went."""
    final: bool = False

    @property
    def short(self) -> str:
        """``p3`` or ``c12``: a column header."""
        return f"{self.kind[0]}{self.number}"


def budget_clock(episode: Episode) -> Callable[[datetime], float]:
    """Seconds on the episode's budget clock at a wall-clock time."""
    origin = episode.turns[0].started_at if episode.turns else episode.started_at
    paused = [] if episode.config.verifier_time_counts else list(episode.passes)

    def clock(when: datetime) -> float:
        wall = (when - origin).total_seconds()
        for verifier_pass in paused:
            into = (when - verifier_pass.started_at).total_seconds()
            wall -= min(max(into, 0.0), verifier_pass.duration_sec)
        return max(0.0, wall)

    return clock


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"


def _reward_text(reward: float | None) -> str:
    return "no reward" if reward is None else f"reward {reward:.3f}"


def graded_points(episode: Episode) -> list[Graded]:
    """The episode's passes and checkpoints in budget-clock order."""
    clock = budget_clock(episode)
    points = []
    for p in episode.passes:
        at = p.elapsed_sec if p.elapsed_sec is not None else clock(p.started_at)
        error = f": {p.error.splitlines()[0]}" if p.error and p.outcome is PassOutcome.ERROR else ""
        points.append(
            Graded(
                kind="pass",
                number=p.number,
                elapsed_sec=at,
                duration_sec=p.duration_sec,
                reward=p.reward,
                scorecard=p.scorecard,
                status=str(p.outcome),
                detail=(
                    f"pass {p.number}{' (final)' if p.final else ''} at {_seconds(at)}: "
                    f"{p.outcome}, {_reward_text(p.reward)}, graded in "
                    f"{_seconds(p.duration_sec)}{error}"
                ),
                final=p.final,
            )
        )
    for c in episode.checkpoints:
        error = f": {c.error.splitlines()[0]}" if c.error else ""
        points.append(
            Graded(
                kind="checkpoint",
                number=c.number,
                elapsed_sec=c.elapsed_sec,
                duration_sec=c.grading_sec,
                reward=c.reward,
                scorecard=c.scorecard,
                status="error" if c.reward is None else "graded",
                detail=(
                    f"checkpoint {c.number} at {_seconds(c.elapsed_sec)}: "
                    f"{_reward_text(c.reward)}, capture {c.capture_sec * 1000:.0f} ms, "
                    f"graded in {_seconds(c.grading_sec)}{error}"
                ),
            )
        )
    return sorted(points, key=lambda g: (g.elapsed_sec, g.kind != "checkpoint", g.number))
