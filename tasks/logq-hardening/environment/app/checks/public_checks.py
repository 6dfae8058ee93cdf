"""Public checks for logq: the saved sample queries, and one injection attempt."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
SAMPLE = APP / "data" / "sample.jsonl"
INJECTION = "__import__('os').system('touch {marker}')"


def logq(*args):
    return subprocess.run([sys.executable, str(APP / "logq.py"), *args],
                          capture_output=True, text=True, timeout=120)


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        queries = json.loads((APP / "data" / "sample_queries.json").read_text())
        ok = True
        for number, query in enumerate(queries):
            out = Path(tmp) / f"q{number}.json"
            args = [str(SAMPLE), "--group-by", query["group_by"], "--top", str(query["top"]), "-o", str(out)]
            if query["where"] is not None:
                args += ["--where", query["where"]]
            proc = logq(*args)
            if proc.returncode != 0 or not out.exists() or json.loads(out.read_text()) != query["expected"]:
                print(f"  query {number} ({query['where']!r}) differs from data/sample_queries.json")
                ok = False
        print(("PASS" if ok else "FAIL") + " sample_queries")
        failed += not ok
        marker = Path(tmp) / "pwned"
        proc = logq(str(SAMPLE), "--where", INJECTION.format(marker=marker))
        ok = proc.returncode == 2 and not marker.exists()
        print(("PASS" if ok else "FAIL") + " rejects_sample_injection"
              + ("" if ok else f" (exit {proc.returncode}, marker created: {marker.exists()})"))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
