#!/usr/bin/env python3
"""Printed values of paper.md / supplement.md vs results/results.json -> results/discrepancies.json.

A value is a discrepancy when it differs from the reproduction by more than half a unit of
its printed last digit."""

import argparse
import json
import re
from pathlib import Path

TERMS = {"TCP enrolment": "program", "Age (per 10 years)": "age10", "Male sex": "male",
         "Charlson 2-3 (vs 0-1)": "charlson_2_3", "Charlson 4+ (vs 0-1)": "charlson_4plus",
         "Creatinine > 1.5 mg/dL": "ckd", "Weight (per 10 kg)": "weight10", "Period 2021-2022": "wave2"}
ANALYSES = {"Wave 1 only": "wave1_only", "Excluding Charlson 4+": "exclude_charlson_4plus",
            "Aged 65 or over": "age_65plus"}
FLOW = ["admissions_raw", "admissions_unique", "patients", "excluded_under18", "excluded_not_discharged_home",
        "excluded_incomplete_followup", "excluded_missing_covariates", "analytic_cohort", "readmitted_30d"]
CAUSES = {
    "flow.excluded_incomplete_followup": "follow-up counted 30 days from admission instead of discharge (S3)",
    "table2.weight10.or": "weight OR printed per kg although labelled per 10 kg",
    "robustness.age_65plus.n": "n counts patients older than 65, not 65 or over",
}


def rows(text):
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            yield [c.strip() for c in line.strip("|").split("|")]


def printed(paper, supplement):
    out = {}
    for cells in rows(paper):
        if cells[0] in TERMS and len(cells) == 3:
            lo, hi = cells[2].split(" to ")
            out.update({f"table2.{TERMS[cells[0]]}.or": cells[1], f"table2.{TERMS[cells[0]]}.ci_low": lo,
                        f"table2.{TERMS[cells[0]]}.ci_high": hi})
        elif cells[0] in ANALYSES:
            lo, hi = cells[3].split(" to ")
            key = f"robustness.{ANALYSES[cells[0]]}"
            out.update({f"{key}.n": cells[1], f"{key}.or": cells[2], f"{key}.ci_low": lo, f"{key}.ci_high": hi})
        elif re.fullmatch(r"\d+-\d+|80\+", cells[0]) and len(cells) == 7:
            for arm, offset in (("program", 1), ("usual_care", 4)):
                for col, i in (("n", 0), ("readmitted", 1), ("rate", 2)):
                    out[f"figure1.{cells[0]}.{arm}.{col}"] = cells[offset + i]
    flow_rows = [cells for cells in rows(supplement) if len(cells) == 2 and cells[1] != "n"]
    for key, cells in zip(FLOW, flow_rows):
        out[f"flow.{key}"] = cells[1]
    return out


def reproduced(results, item):
    node = results
    parts = item.split(".")
    node = results[parts[0]]
    for part in parts[1:]:
        node = node[part]
    return node


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", default="paper")
    parser.add_argument("--results", default="results/results.json")
    parser.add_argument("--out", default="results/discrepancies.json")
    args = parser.parse_args(argv)
    paper = Path(args.paper)
    results = json.loads(Path(args.results).read_text())
    found = []
    for item, text in printed((paper / "paper.md").read_text(), (paper / "supplement.md").read_text()).items():
        mine = reproduced(results, item)
        if text == "-" or mine is None:
            continue
        value = float(text.replace(",", ""))
        decimals = len(text.split(".")[1]) if "." in text else 0
        if abs(value - mine) > 0.5 * 10 ** -decimals + 1e-12:
            found.append({"item": item, "paper": value, "reproduced": mine,
                          "cause": CAUSES.get(item, "printed value does not match the data (transcription error)")})
    Path(args.out).write_text(json.dumps({"discrepancies": found}, indent=2) + "\n")
    print(f"{len(found)} discrepancies")


if __name__ == "__main__":
    main()
