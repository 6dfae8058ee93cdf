"""Public checks: run close.py on sample/input and compare with sample/expected."""

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
FILES = ["payment_run.csv", "exceptions.csv", "deferred.csv"]


def table(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def main():
    expected = APP / "sample" / "expected"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        proc = subprocess.run([sys.executable, str(APP / "close.py"), str(APP / "sample" / "input"), str(out)],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            print("FAIL deliverables_shape: close.py failed:\n" + proc.stderr[-2000:])
            return 1
        problems = []
        for name in FILES:
            if not (out / name).exists() or not table(out / name) or table(out / name)[0] != table(expected / name)[0]:
                problems.append(f"{name}: missing or wrong header")
        try:
            summary = json.loads((out / "summary.json").read_text())
            want = json.loads((expected / "summary.json").read_text())
            if set(summary) != set(want):
                problems.append("summary.json: keys differ")
        except (OSError, ValueError) as exc:
            problems.append(f"summary.json: {exc}")
        if problems:
            print("FAIL deliverables_shape:\n  " + "\n  ".join(problems))
            return 1
        print("PASS deliverables_shape")
        for name in FILES:
            if table(out / name) != table(expected / name):
                problems.append(f"{name} differs from sample/expected/{name}")
        mine = json.loads((out / "summary.json").read_text())
        for key, value in want.items():
            if isinstance(value, float):
                if not isinstance(mine.get(key), (int, float)) or abs(mine[key] - value) > 0.011:
                    problems.append(f"summary.json {key}: {mine.get(key)} vs {value}")
            elif key == "paid_usd_by_vendor":
                got = mine.get(key) or {}
                if set(got) != set(value) or any(abs(got[k] - v) > 0.011 for k, v in value.items()):
                    problems.append(f"summary.json {key} differs")
            elif mine.get(key) != value:
                problems.append(f"summary.json {key}: {mine.get(key)} vs {value}")
        if problems:
            print("FAIL sample_matches:\n  " + "\n  ".join(problems))
            return 1
        print("PASS sample_matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
