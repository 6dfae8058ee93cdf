"""Reproduce Table 2 of paper/paper.md from a study table.

Usage: python3 reproduce.py --data DIR --out TABLE.csv

DIR holds studies.csv. TABLE.csv gets one row per setting (alphabetical) and a
final "Overall" row with the columns in HEADER.

Status (handover note from the previous analyst): loading works; the fixed-effect
pooling is a first draft; study selection, the random-effects model,
heterogeneity and the output are not done. Numbers do not match the paper yet.
"""

import argparse
import csv
import math
from pathlib import Path

HEADER = ["subgroup", "k", "participants", "or_fixed", "or_random", "ci_low", "ci_high", "i2", "tau2"]


def load(data_dir):
    with open(Path(data_dir) / "studies.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def log_odds_ratio(row):
    a, c = int(row["events_t"]), int(row["events_c"])
    b, d = int(row["n_t"]) - a, int(row["n_c"]) - c
    return math.log((a * d) / (b * c)), 1 / a + 1 / b + 1 / c + 1 / d


def fixed_effect(rows):
    effects = [log_odds_ratio(r) for r in rows]
    weights = [1 / v for _, v in effects]
    return sum(w * y for w, (y, _) in zip(weights, effects)) / len(effects)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rows = load(args.data)
    # TODO: study selection (paper, Methods), subgroups, random effects, I2, tau2
    raise NotImplementedError(f"{len(rows)} reports loaded; the analysis is unfinished")


if __name__ == "__main__":
    main()
