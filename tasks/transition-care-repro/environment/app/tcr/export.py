"""CSV exports of the results for the journal's data supplement."""

import csv

from . import config


def write_flow(path, flow):
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["step", "n"])
        for key in config.FLOW_STEPS:
            out.writerow([key, flow[key]])


def write_odds_ratios(path, table, terms):
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["term", "or", "ci_low", "ci_high"])
        for term in terms:
            row = table[term]
            out.writerow([term, f"{row['or']:.6f}", f"{row['ci_low']:.6f}", f"{row['ci_high']:.6f}"])


def write_robustness(path, t3):
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["analysis", "n", "or", "ci_low", "ci_high"])
        for name, row in t3.items():
            out.writerow([name, row["n"], f"{row['or']:.6f}", f"{row['ci_low']:.6f}", f"{row['ci_high']:.6f}"])


def write_figure(path, fig):
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["age_group", "arm", "n", "readmitted", "rate"])
        for label, _, _ in config.AGE_GROUPS:
            for arm in ("program", "usual_care"):
                cell = fig[label][arm]
                rate = "" if cell["rate"] is None else f"{cell['rate']:.6f}"
                out.writerow([label, arm, cell["n"], cell["readmitted"], rate])


def write_all(directory, results):
    write_flow(directory / "flow.csv", results["flow"])
    write_odds_ratios(directory / "table2.csv", results["table2"], config.MODEL_TERMS)
    write_robustness(directory / "table3.csv", results["robustness"])
    write_figure(directory / "figure1.csv", results["figure1"])
