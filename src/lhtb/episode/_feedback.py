"""What a rejected agent is told.

``binary`` (the default) is one fixed sentence carrying only the pass number and
the remaining time: nothing derived from scores, tests or logs. ``diagnostic``
adds the names and scores of public subtasks; episodes run that way are marked
not comparable.
"""

from __future__ import annotations

from lhtb.episode._record import FeedbackMode
from lhtb.task._model import Visibility
from lhtb.verify._scoring import Scorecard

__all__ = ["rejection_message"]

BINARY_SENTENCE = (
    "Your work did not pass the hidden verification (verifier pass {number}). "
    "No verifier details, test output or hidden requirements are available. "
    "About {minutes} minute(s) of your time budget remain: keep working, and stop "
    "again when you believe the task is complete."
)


def rejection_message(
    mode: FeedbackMode, *, number: int, remaining_sec: float, scorecard: Scorecard | None
) -> str:
    """The feedback for a rejected pass ``number`` with ``remaining_sec`` left."""
    text = BINARY_SENTENCE.format(number=number, minutes=max(0, round(remaining_sec / 60)))
    if mode is FeedbackMode.BINARY or scorecard is None:
        return text
    public = [s for s in scorecard.subtasks if s.visibility is Visibility.PUBLIC]
    if not public:
        return text
    lines = "\n".join(f"- {s.name}: {s.score:.2f}" for s in public)
    return f"{text}\n\nPublic checks:\n{lines}"
