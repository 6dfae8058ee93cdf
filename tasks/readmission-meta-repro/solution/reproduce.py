"""Reproduce Table 2 of paper/paper.md from a study table.

Usage: python3 reproduce.py --data DIR --out TABLE.csv
"""

import argparse
import csv
import math
from collections import defaultdict
from pathlib import Path

HEADER = ["subgroup", "k", "participants", "or_fixed", "or_random", "ci_low", "ci_high", "i2", "tau2"]
Z975 = 1.959963984540054


def load(data_dir):
    with open(Path(data_dir) / "studies.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def included_trials(reports):
    reports = [r for r in reports if r["status"].strip().lower() != "retracted"]
    by_trial = defaultdict(list)
    for report in reports:
        by_trial[report["registry"].strip()].append(report)
    chosen = [max(group, key=lambda r: (int(r["n_t"]) + int(r["n_c"]), int(r["year"])))
              for group in by_trial.values()]
    trials = []
    for report in chosen:
        if float(report["followup_weeks"]) < 4:
            continue
        n_t = int(report["analysed_t"]) if report["analysed_t"].strip() else int(report["n_t"])
        n_c = int(report["analysed_c"]) if report["analysed_c"].strip() else int(report["n_c"])
        e_t, e_c = int(report["events_t"]), int(report["events_c"])
        if e_t == 0 and e_c == 0:
            continue
        if e_t == n_t and e_c == n_c:
            continue
        cells = [e_t, n_t - e_t, e_c, n_c - e_c]
        if min(cells) == 0:
            cells = [x + 0.5 for x in cells]
        a, b, c, d = cells
        trials.append({
            "setting": report["setting"].strip(),
            "n": n_t + n_c,
            "y": math.log(a) + math.log(d) - math.log(b) - math.log(c),
            "v": sum(1.0 / x for x in cells),
        })
    return trials


def meta(trials):
    y = [t["y"] for t in trials]
    v = [t["v"] for t in trials]
    w = [1.0 / x for x in v]
    total = math.fsum(w)
    theta = math.fsum(a * b for a, b in zip(w, y)) / total
    q = math.fsum(a * (b - theta) ** 2 for a, b in zip(w, y))
    df = len(trials) - 1
    c = total - math.fsum(a * a for a in w) / total
    tau2 = max(0.0, (q - df) / c) if df > 0 else 0.0
    i2 = max(0.0, (q - df) / q) * 100.0 if df > 0 and q > 0 else 0.0
    wr = [1.0 / (x + tau2) for x in v]
    mu = math.fsum(a * b for a, b in zip(wr, y)) / math.fsum(wr)
    se = math.sqrt(1.0 / math.fsum(wr))
    return [len(trials), sum(t["n"] for t in trials), f"{math.exp(theta):.4f}", f"{math.exp(mu):.4f}",
            f"{math.exp(mu - Z975 * se):.4f}", f"{math.exp(mu + Z975 * se):.4f}", f"{i2:.2f}", f"{tau2:.4f}"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    trials = included_trials(load(args.data))
    rows = [[s] + meta([t for t in trials if t["setting"] == s]) for s in sorted({t["setting"] for t in trials})]
    rows.append(["Overall"] + meta(trials))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(rows)


if __name__ == "__main__":
    main()
