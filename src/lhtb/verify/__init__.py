"""Verification: running a task's hidden tests out of the agent's reach, and scoring them.

Owns one verifier pass from start to end (:class:`Verifier`): freezing the agent's
sandbox, the isolation modes (``separate``, ``snapshot``, ``shared``, live
verification), collecting and confining artifacts, the episode's grading seed,
reading the reward files into a :class:`Scorecard`, and what a pass produced
(:class:`VerifierPass`); plus the kit the tests import (``kit/lhtb_scorecard.py``).

- ``_verifier``: :class:`Verifier`, one pass per isolation mode, re-grading kept inputs.
- ``_scoring``: the one reader of ``scorecard.json`` / ``reward.json`` / ``reward.txt``.
- ``_pass``: :class:`VerifierPass`, :class:`PassOutcome`, :class:`KeptInputs`.
- ``_artifacts``, ``_host_files``: confining exported artifacts; host files as artifacts.
- ``_seeds``: one grading seed per episode, shared by its passes.
- ``kit/``: files placed next to the tests in the verifier sandbox (stdlib only).

May import: :mod:`lhtb.sandbox` (any part), :mod:`lhtb.task`, :mod:`lhtb.errors`,
:mod:`lhtb._util`; not the agents or the episode loop.
"""

from lhtb.verify._pass import KeptInputs, PassOutcome, VerifierPass
from lhtb.verify._scoring import Scorecard, Subtask, check_declared, read_scorecard
from lhtb.verify._verifier import Verifier

__all__ = [
    "KeptInputs",
    "PassOutcome",
    "Scorecard",
    "Subtask",
    "Verifier",
    "VerifierPass",
    "check_declared",
    "read_scorecard",
]
