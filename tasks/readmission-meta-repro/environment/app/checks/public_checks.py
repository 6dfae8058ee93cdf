"""Public checks: reproduce.py on the bundled data vs the paper's printed Table 2."""

import csv
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
HEADER = ["subgroup", "k", "participants", "or_fixed", "or_random", "ci_low", "ci_high", "i2", "tau2"]
# printed precision: ORs 2 decimals, I2 1 decimal, tau2 3 decimals
SLACK = {"or_fixed": 0.0051, "or_random": 0.0051, "ci_low": 0.0051, "ci_high": 0.0051,
         "i2": 0.051, "tau2": 0.00051}


def read(path):
    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "table2.csv"
        proc = subprocess.run([sys.executable, str(APP / "reproduce.py"), "--data", str(APP / "data"),
                               "--out", str(out)], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0 or not out.exists():
            print("FAIL table_format: reproduce.py failed:\n" + proc.stderr[-2000:])
            return 1
        got = read(out)
        want = read(APP / "paper" / "table2_published.csv")
        if not got or got[0] != HEADER or [r[0] for r in got[1:]] != [r[0] for r in want[1:]]:
            print(f"FAIL table_format: expected header {HEADER} and rows {[r[0] for r in want[1:]]}")
            return 1
        print("PASS table_format")
        bad = []
        for mine, paper in zip(got[1:], want[1:]):
            for column, a, b in zip(HEADER[1:], mine[1:], paper[1:]):
                try:
                    close = abs(float(a) - float(b)) <= SLACK.get(column, 0)
                except ValueError:
                    close = False
                if not close:
                    bad.append(f"{paper[0]}.{column}: {a} vs published {b}")
        if bad:
            print("FAIL published_table:\n  " + "\n  ".join(bad))
            return 1
        print("PASS published_table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
