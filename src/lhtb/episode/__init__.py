"""Episodes: one agent on one task, from the first turn to the final verification.

Owns :func:`run_episode` (the continue-until-timeout state machine: agent turns,
verifier passes, feedback, the deadline, teardown), multi-step tasks, hidden
checkpoint grading, the agent's turn-gated sandbox handle, what a rejected agent
is told, how a failure is classified, the event log, the live progress display,
and the record of it all (:class:`Episode`, versioned JSON).

- ``_runner``: :func:`run_episode`, :func:`run_episode_sync`.
- ``_multi_step``: Harbor ``[[steps]]`` tasks (steps in order in one sandbox).
- ``_record``: :class:`Episode` and what it holds; the schema version and converter.
  (A verifier pass's own record, :class:`VerifierPass`, is defined in :mod:`lhtb.verify`
  and exported here with the rest of the record.)
- ``_checkpoints``: hidden grading on a schedule; ``_turn_gate``: the agent's handle.
- ``_feedback``: the rejection message; ``_failures``: whose failure, retry or not.
- ``_events``: ``events.jsonl``; ``_progress``, ``_progress_rich``: showing the events.

May import: :mod:`lhtb.verify`, :mod:`lhtb.agents`, :mod:`lhtb.sandbox`,
:mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`.
"""

from lhtb.episode._record import (
    EPISODE_SCHEMA_VERSION,
    ERROR_OUTCOMES,
    Checkpoint,
    Episode,
    EpisodeConfig,
    FeedbackMode,
    Outcome,
    StepRecord,
    Timings,
    TurnEnd,
    TurnRecord,
)
from lhtb.episode._runner import run_episode, run_episode_sync
from lhtb.verify._pass import KeptInputs, PassOutcome, VerifierPass

__all__ = [
    "EPISODE_SCHEMA_VERSION",
    "ERROR_OUTCOMES",
    "Checkpoint",
    "Episode",
    "EpisodeConfig",
    "FeedbackMode",
    "KeptInputs",
    "Outcome",
    "PassOutcome",
    "StepRecord",
    "Timings",
    "TurnEnd",
    "TurnRecord",
    "VerifierPass",
    "run_episode",
    "run_episode_sync",
]
