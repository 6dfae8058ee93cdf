#!/usr/bin/env python3
"""results/results.json -> results/tables.md (the manuscript's tables, rounded as printed)."""

import argparse
import json
from pathlib import Path

from tcr import render


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results/results.json")
    parser.add_argument("--out", default="results/tables.md")
    args = parser.parse_args(argv)
    results = json.loads(Path(args.results).read_text())
    Path(args.out).write_text(render.document(results))


if __name__ == "__main__":
    main()
