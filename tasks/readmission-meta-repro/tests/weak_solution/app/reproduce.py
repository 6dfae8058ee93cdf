"""Weak fix (public checks only): removes retracted and short-follow-up reports and
pools correctly, but ignores duplicate reports, the analysed counts, the zero-cell
correction and single-trial subgroups (none of which occur in the bundled data)."""

import argparse
import csv
import math
from pathlib import Path

HEADER = ["subgroup", "k", "participants", "or_fixed", "or_random", "ci_low", "ci_high", "i2", "tau2"]


def pool(rows):
    ys, vs, n = [], [], 0
    for r in rows:
        a, c = int(r["events_t"]), int(r["events_c"])
        b, d = int(r["n_t"]) - a, int(r["n_c"]) - c
        ys.append(math.log(a * d / (b * c)))
        vs.append(1 / a + 1 / b + 1 / c + 1 / d)
        n += int(r["n_t"]) + int(r["n_c"])
    w = [1 / v for v in vs]
    fe = sum(x * y for x, y in zip(w, ys)) / sum(w)
    q = sum(x * (y - fe) ** 2 for x, y in zip(w, ys))
    df = len(ys) - 1
    tau2 = max(0.0, (q - df) / (sum(w) - sum(x * x for x in w) / sum(w)))
    i2 = max(0.0, (q - df) / q) * 100
    wr = [1 / (v + tau2) for v in vs]
    mu = sum(x * y for x, y in zip(wr, ys)) / sum(wr)
    se = math.sqrt(1 / sum(wr))
    return [len(ys), n, f"{math.exp(fe):.4f}", f"{math.exp(mu):.4f}", f"{math.exp(mu - 1.96 * se):.4f}",
            f"{math.exp(mu + 1.96 * se):.4f}", f"{i2:.2f}", f"{tau2:.4f}"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(Path(args.data) / "studies.csv", newline="") as handle:
        rows = [r for r in csv.DictReader(handle)
                if r["status"] != "retracted" and float(r["followup_weeks"]) >= 4]
    table = [[s] + pool([r for r in rows if r["setting"] == s]) for s in sorted({r["setting"] for r in rows})]
    table.append(["Overall"] + pool(rows))
    with open(args.out, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(table)


if __name__ == "__main__":
    main()
