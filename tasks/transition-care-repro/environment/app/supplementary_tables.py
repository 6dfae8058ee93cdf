#!/usr/bin/env python3
"""Supplementary analyses: Table 1, model performance, interactions, Figure S2 -> results/supplement.json."""

import argparse
import json
from pathlib import Path

from tcr import calibration, cohort, config, describe, export, interaction, loaders, timeline


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", default="data/raw")
    parser.add_argument("--out", default="results")
    parser.add_argument("--csv", action="store_true", help="also export results.json tables as CSV")
    args = parser.parse_args(argv)
    members, _ = cohort.build(loaders.load_patients(args.raw), loaders.load_admissions(args.raw))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = {
        "table1": describe.table1(members),
        "performance": calibration.performance(members, config.MODEL_TERMS),
        "interactions": interaction.table_s3(members),
        "figure_s2": timeline.monthly(members),
    }
    (out / "supplement.json").write_text(json.dumps(doc, indent=2) + "\n")
    if args.csv:
        export.write_all(out, json.loads((out / "results.json").read_text()))


if __name__ == "__main__":
    main()
