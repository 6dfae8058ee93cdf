"""Public checks: the pipeline runs on the bundled data and the deliverables have the agreed shape.

They say nothing about whether the numbers are right."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
FLOW = ["admissions_raw", "admissions_unique", "patients", "excluded_under18", "excluded_not_discharged_home",
        "excluded_incomplete_followup", "excluded_missing_covariates", "analytic_cohort", "readmitted_30d"]
TERMS = ["program", "age10", "male", "charlson_2_3", "charlson_4plus", "ckd", "weight10", "wave2"]
ANALYSES = ["wave1_only", "exclude_charlson_4plus", "age_65plus"]
GROUPS = ["18-49", "50-64", "65-79", "80+"]


def shape_problems(doc):
    problems = []
    if not isinstance(doc, dict):
        return ["results.json is not an object"]
    if list(doc.get("flow", {})) != FLOW or not all(isinstance(v, int) for v in doc["flow"].values()):
        problems.append(f"flow must map {FLOW} (in order) to integers")
    for term in TERMS:
        row = doc.get("table2", {}).get(term)
        if not isinstance(row, dict) or sorted(row) != ["ci_high", "ci_low", "or"]:
            problems.append(f"table2.{term} must have or, ci_low, ci_high")
    for name in ANALYSES:
        row = doc.get("robustness", {}).get(name)
        if not isinstance(row, dict) or sorted(row) != ["ci_high", "ci_low", "n", "or"]:
            problems.append(f"robustness.{name} must have n, or, ci_low, ci_high")
    for group in GROUPS:
        for arm in ("program", "usual_care"):
            cell = doc.get("figure1", {}).get(group, {}).get(arm)
            if not isinstance(cell, dict) or sorted(cell) != ["n", "rate", "readmitted"]:
                problems.append(f"figure1.{group}.{arm} must have n, readmitted, rate")
    return problems


def report_problems(path):
    try:
        doc = json.loads(path.read_text())
        items = doc["discrepancies"]
        assert isinstance(items, list)
        for entry in items:
            assert isinstance(entry["item"], str) and isinstance(entry["cause"], str) and entry["cause"].strip()
            float(entry["paper"])
            float(entry["reproduced"])
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        return ["results/discrepancies.json must be {\"discrepancies\": [{item, paper, reproduced, cause}, ...]}"]
    return []


def main():
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([sys.executable, str(APP / "run_pipeline.py"), "--raw", str(APP / "data" / "raw"),
                               "--out", tmp], capture_output=True, text=True, timeout=600, cwd=str(APP))
        out = Path(tmp) / "results.json"
        if proc.returncode != 0 or not out.is_file():
            print("FAIL pipeline_contract: run_pipeline.py failed:\n" + proc.stderr[-2000:])
            return 1
        fresh = json.loads(out.read_text())
    problems = shape_problems(fresh)
    if problems:
        print("FAIL pipeline_contract:\n  " + "\n  ".join(problems))
        return 1
    print("PASS pipeline_contract")
    saved = APP / "results" / "results.json"
    problems = [] if saved.is_file() and json.loads(saved.read_text()) == fresh else [
        "results/results.json is missing or differs from a fresh run on data/raw"]
    problems += report_problems(APP / "results" / "discrepancies.json")
    if problems:
        print("FAIL deliverables:\n  " + "\n  ".join(problems))
        return 1
    print("PASS deliverables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
