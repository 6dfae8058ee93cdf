"""Files the harness places in the verifier sandbox next to a task's tests.

:data:`KIT_PATH` is ``lhtb_scorecard.py``, a stdlib-only helper (Python >= 3.8)
that test scripts import to write ``/logs/verifier/scorecard.json`` and to run
the agent's code isolated from the tests (``run_untrusted``: as uid 65534, with
``/tests`` and ``/logs/verifier`` locked, a clean environment and leftover
processes killed); the harness copies it to :data:`KIT_DESTINATION`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["KIT_DESTINATION", "KIT_PATH"]

#: The scorecard helper on the host, to copy into the verifier sandbox.
KIT_PATH: Path = Path(__file__).resolve().with_name("lhtb_scorecard.py")
#: Where the helper lands in the verifier sandbox (beside the task's tests).
KIT_DESTINATION = "/tests/lhtb_scorecard.py"
