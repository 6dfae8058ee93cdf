#!/usr/bin/env python3
"""Public checks: the sample queries in positions/samples.txt against expected
answers in positions/samples.expected. For matches use python3 -m holdfast.tournament."""

import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent


def main() -> int:
    queries = [line for line in (APP / "positions" / "samples.txt").read_text().splitlines()
               if line and not line.startswith(";")]
    expected = (APP / "positions" / "samples.expected").read_text().splitlines()
    commands = []
    for line in queries:
        query, cells, side = line.split()
        commands += [f"position {cells} {side}", query]
    proc = subprocess.run([sys.executable, str(APP / "engine.py")], input="\n".join(commands + ["quit"]) + "\n",
                          capture_output=True, text=True, timeout=120)
    replies = [r for r in proc.stdout.splitlines() if r != "ok"]
    failures = 0
    for line, want, got in zip(queries, expected, replies + [""] * len(queries)):
        status = "ok  " if want == got else "FAIL"
        failures += want != got
        print(f"{status} {line[:12]}...: expected {want!r}, got {got!r}")
    print("public checks:", "all samples match" if not failures else f"{failures} sample(s) differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
