"""Public checks: run the tool on the bundled sample and compare."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        proc = subprocess.run(
            [sys.executable, str(APP / "heatwave.py"), str(APP / "data" / "sample.csv"), "-o", str(out)],
            capture_output=True, text=True, timeout=60,
        )
        if proc.returncode != 0 or not out.exists():
            print("FAIL cli_contract: heatwave.py failed:\n" + proc.stderr[-2000:])
            return 1
        got = json.loads(out.read_text())
        if not isinstance(got.get("stations"), dict):
            print("FAIL cli_contract: output has no 'stations' object")
            return 1
        print("PASS cli_contract")
        expected = json.loads((APP / "data" / "sample_expected.json").read_text())
        if got != expected:
            print("FAIL sample_matches: output differs from data/sample_expected.json")
            return 1
        print("PASS sample_matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
