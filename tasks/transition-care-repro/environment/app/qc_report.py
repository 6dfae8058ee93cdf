#!/usr/bin/env python3
"""Data-quality summary of the raw extracts -> results/qc.json."""

import argparse
import json
from pathlib import Path

from tcr import qc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", default="data/raw")
    parser.add_argument("--out", default="results")
    args = parser.parse_args(argv)
    report = qc.summarise(args.raw)
    report["cross_wave_overlap"] = qc.cross_wave_overlap(args.raw)
    report["follow_up"] = qc.follow_up_window()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "qc.json").write_text(json.dumps(report, indent=2) + "\n")
    for name, part in report.items():
        if isinstance(part, dict) and "rows" in part:
            print(f"{name}: {part['rows']} rows")


if __name__ == "__main__":
    main()
