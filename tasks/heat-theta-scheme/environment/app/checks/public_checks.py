"""Public checks: run the solver on the bundled case and compare with the expected result."""

import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
KEYS = ("x", "u", "steps", "l2_error", "levels", "observed_order")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        proc = subprocess.run(
            [sys.executable, str(APP / "run.py"), str(APP / "cases" / "public_case.json"), "-o", str(out)],
            capture_output=True, text=True, timeout=60, cwd=str(APP),
        )
        if proc.returncode != 0 or not out.exists():
            print("FAIL public_case_runs: run.py failed:\n" + proc.stderr[-2000:])
            return 1
        got = json.loads(out.read_text())
        missing = [k for k in KEYS if k not in got]
        if missing:
            print(f"FAIL public_case_runs: result lacks {missing}")
            return 1
        print("PASS public_case_runs")
        want = json.loads((APP / "cases" / "public_expected.json").read_text())
        problems = []
        if got["steps"] != want["steps"]:
            problems.append(f"steps {got['steps']} != {want['steps']}")
        scale = max(abs(v) for v in want["u"])
        if len(got["u"]) != len(want["u"]) or max(
                abs(a - b) for a, b in zip(got["u"], want["u"])) > 1e-8 * scale:
            problems.append("u differs by more than 1e-8 (relative to max |u|)")
        if abs(got["l2_error"] - want["l2_error"]) > 1e-6 * want["l2_error"]:
            problems.append(f"l2_error {got['l2_error']!r} != {want['l2_error']!r} (rel 1e-6)")
        order = got["observed_order"]
        if not isinstance(order, (int, float)) or not math.isfinite(order) or abs(
                order - want["observed_order"]) > 0.005:
            problems.append(f"observed_order {order!r} != {want['observed_order']!r} (abs 0.005)")
        if problems:
            print("FAIL public_case_matches: " + "; ".join(problems))
            return 1
        print("PASS public_case_matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
