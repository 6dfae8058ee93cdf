#!/usr/bin/env python3
"""Raw registry extracts -> results.json (flow, Table 2, Table 3, Figure 1 data).

Usage: python3 run_pipeline.py --raw data/raw --out results
"""

import argparse
from pathlib import Path

from tcr import cohort, figures, loaders, robustness, tables


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", default="data/raw")
    parser.add_argument("--out", default="results")
    args = parser.parse_args(argv)
    patients = loaders.load_patients(args.raw)
    admissions = loaders.load_admissions(args.raw)
    members, flow = cohort.build(patients, admissions)
    t2 = tables.table2(members)
    t3 = robustness.table3(members)
    fig1 = figures.figure1(members)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tables.write_results(out / "results.json", flow, t2, t3, fig1)


if __name__ == "__main__":
    main()
