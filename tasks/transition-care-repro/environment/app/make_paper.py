#!/usr/bin/env python3
"""Everything for the manuscript: results.json, tables.md, supplement.json, CSVs, manifest."""

import argparse
import subprocess
import sys
from pathlib import Path

from tcr import manifest

STEPS = [
    ["run_pipeline.py"],
    ["supplementary_tables.py", "--csv"],
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", default="data/raw")
    parser.add_argument("--out", default="results")
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parent
    for step in STEPS:
        cmd = [sys.executable, str(here / step[0]), "--raw", args.raw, "--out", args.out] + step[1:]
        subprocess.run(cmd, check=True)
    out = Path(args.out)
    subprocess.run([sys.executable, str(here / "render_tables.py"), "--results", str(out / "results.json"),
                    "--out", str(out / "tables.md")], check=True)
    manifest.write(out / "manifest.json", args.raw, [p.name for p in out.iterdir()])


if __name__ == "__main__":
    main()
