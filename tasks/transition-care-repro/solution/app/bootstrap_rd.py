#!/usr/bin/env python3
"""Adjusted risk difference with a percentile bootstrap CI (slow: minutes in pure Python)."""

import argparse
import json

from tcr import bootstrap, cohort, loaders


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", default="data/raw")
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20230115)
    args = parser.parse_args(argv)
    members, _ = cohort.build(loaders.load_patients(args.raw), loaders.load_admissions(args.raw))
    print(json.dumps(bootstrap.risk_difference_ci(members, args.replicates, args.seed), indent=2))


if __name__ == "__main__":
    main()
