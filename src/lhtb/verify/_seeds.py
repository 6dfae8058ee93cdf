"""Episode grading seeds: one per episode, shared by all of its verifier passes.

Hidden cases are generated from the seed. A fresh seed per pass would let an
agent re-roll a flawed solution into "solved" by stopping again and again, so
the harness draws (or derives) one seed when the episode starts, records it
in the episode, and hands the same value to every pass as ``$LHTB_SEED``.
"""

from __future__ import annotations

import hashlib
import secrets

from lhtb.errors import LhtbError

__all__ = ["MAX_SEED", "SEED_ENV", "check_seed", "derive_seed", "random_seed"]

SEED_ENV = "LHTB_SEED"
"""The verifier's environment variable carrying the episode seed."""
MAX_SEED = 2**32 - 1
"""Seeds are integers in ``[0, MAX_SEED]``."""


def check_seed(seed: object, *, where: str = "seed") -> int:
    """``seed`` as a valid grading seed.

    Raises:
        LhtbError: not an integer in ``[0, MAX_SEED]``.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise LhtbError(
            f"a seed must be an integer from 0 to {MAX_SEED}, got {seed!r}",
            where=where,
            fix="pass a non-negative integer below 2**32",
        )
    return seed


def random_seed() -> int:
    """A fresh seed, for an episode or a run that was given none."""
    return secrets.randbelow(MAX_SEED + 1)


def derive_seed(run_seed: int, task_checksum: str, attempt: int) -> int:
    """The episode seed of one attempt at one task in a run seeded ``run_seed``.

    Deterministic (a resumed or retried slot grades the same cases), the same
    for every agent in the slot (their scores compare), and different between
    attempts (so pass@k measures k independent draws).
    """
    digest = hashlib.sha256(f"{run_seed}:{task_checksum}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big")
