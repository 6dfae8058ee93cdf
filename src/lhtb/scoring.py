"""Scoring rules: turn a verifier's output directory into a :class:`Scorecard`.

One authoritative reader (:func:`read_scorecard`) for the three reward files,
in order of precedence:

1. ``scorecard.json`` (lhtb): weighted subtasks, R = sum(w*s) / sum(w);
2. ``reward.json`` (Harbor): a flat object of numbers, ``reward`` is R;
3. ``reward.txt`` (Harbor): one number.

Missing, empty, malformed, NaN or out-of-range values, and two files that
disagree, raise :class:`~lhtb.errors.RewardFileError`: a verifier error, never
a silent zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import attrs

from lhtb.task import Visibility

__all__ = ["Scorecard", "Subtask", "read_scorecard"]


@attrs.frozen
class Subtask:
    """One weighted, scored part of a task."""

    name: str
    score: float
    weight: float = 1.0
    visibility: Visibility = Visibility.HIDDEN
    message: str | None = None


@attrs.frozen
class Scorecard:
    """A verifier pass's result: the reward and, when available, its subtasks.

    ``source`` names the reward file it was read from; ``values`` keeps every
    number of a Harbor ``reward.json``.
    """

    reward: float
    subtasks: tuple[Subtask, ...] = ()
    source: str = "scorecard.json"
    values: Mapping[str, float] = attrs.field(factory=dict)

    def _weighted(self, visibility: Visibility) -> float | None:
        chosen = [s for s in self.subtasks if s.visibility is visibility]
        total = sum(s.weight for s in chosen)
        return sum(s.weight * s.score for s in chosen) / total if total else None

    @property
    def public_reward(self) -> float | None:
        """Weighted score over public subtasks only (None if there are none)."""
        return self._weighted(Visibility.PUBLIC)

    @property
    def hidden_reward(self) -> float | None:
        """Weighted score over hidden subtasks only (None if there are none)."""
        return self._weighted(Visibility.HIDDEN)


def read_scorecard(directory: Path) -> Scorecard:
    """Read the verifier output in ``directory`` by the precedence rules above."""
    raise NotImplementedError
