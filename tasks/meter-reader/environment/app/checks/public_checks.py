"""Public checks: read the bundled sample panels and compare with samples/expected.json."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent


def main():
    expected = json.loads((APP / "samples" / "expected.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "readings.json"
        proc = subprocess.run(
            [sys.executable, str(APP / "readmeter.py"),
             *[str(APP / "samples" / name) for name in sorted(expected)], "-o", str(out)],
            capture_output=True, text=True, timeout=120, cwd=str(APP))
        if proc.returncode != 0 or not out.exists():
            print("FAIL cli_contract: readmeter.py failed:\n" + proc.stderr[-2000:])
            return 1
        got = json.loads(out.read_text()).get("readings", {})
        if not all(isinstance(got.get(name), str) for name in expected):
            print("FAIL cli_contract: output lacks a string reading for every image")
            return 1
        print("PASS cli_contract")
        wrong = {name: (got.get(name), want) for name, want in expected.items() if got.get(name) != want}
        if wrong:
            print("FAIL samples_match: " + ", ".join(f"{n}: got {g!r}, want {w!r}" for n, (g, w) in wrong.items()))
            return 1
        print("PASS samples_match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
