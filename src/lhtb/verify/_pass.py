"""What one verifier pass produced, as the episode record keeps it.

The :class:`~lhtb.verify.Verifier` returns a :class:`VerifierPass`; the episode
record (:mod:`lhtb.episode`) holds a tuple of them and reads and writes them with
its converter, so a change here is a change of the record format (bump
``EPISODE_SCHEMA_VERSION`` in ``episode/_record.py``).
"""

from __future__ import annotations

import enum
from datetime import datetime

import attrs

from lhtb.verify._scoring import Scorecard

__all__ = ["KeptInputs", "PassOutcome", "VerifierPass"]


class PassOutcome(enum.StrEnum):
    """How one verifier pass ended."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"


@attrs.frozen
class KeptInputs:
    """What a verifier pass graded, kept in the episode directory for re-grading.

    ``path`` (relative to the episode directory) holds the artifact archives
    handed to the verifier, in order; it is ``None`` when nothing was kept, and
    ``note`` then says why (over the size cap, refused, an isolation mode
    whose state is not kept). Each pass replaces the previous pass's files, so
    only the last pass's inputs are on disk: those of the final verification.
    """

    path: str | None
    size_bytes: int = 0
    note: str | None = None


@attrs.frozen
class VerifierPass:
    """One verifier pass. ``reward`` is ``None`` when the pass produced none.

    ``log_dir`` is the pass's folder (test output, logs, scorecard), relative
    to the episode directory (the verifier's ``output_dir``); ``seed`` is the
    grading seed the tests got as ``$LHTB_SEED``. ``elapsed_sec`` is the
    budget clock when the graded state was taken (the agent's stop), the clock
    checkpoints are timed on; ``None`` in records written before lhtb kept it.
    """

    number: int
    started_at: datetime
    duration_sec: float
    outcome: PassOutcome
    reward: float | None = None
    scorecard: Scorecard | None = None
    error: str | None = None
    log_dir: str | None = None
    final: bool = False
    seed: int | None = None
    inputs: KeptInputs | None = None
    elapsed_sec: float | None = None
