"""Complete-case analysis check (Supplement S4): who was excluded for missing covariates."""

from . import cohort, config, dates, outcome
from .dedup import group_by_patient, unique_admissions


def excluded_for_missing(patients, admissions):
    """Index stays that passed the earlier criteria but lack a covariate, with the reason."""
    reasons = {"charlson": 0, "weight": 0, "creatinine": 0}
    rows = []
    for pid, stays in group_by_patient(unique_admissions(admissions)).items():
        index = stays[0]
        age = dates.completed_years(patients[pid].birth_date, index.admit)
        if age < config.MIN_AGE or index.disposition != "home" or not outcome.follow_up_complete(index):
            continue
        if cohort.has_covariates(index):
            continue
        missing = []
        if index.charlson is None:
            missing.append("charlson")
        if not cohort.plausible_weight(index.weight_kg):
            missing.append("weight")
        if index.creatinine_mgdl is None:
            missing.append("creatinine")
        for reason in missing:
            reasons[reason] += 1
        rows.append({"patient_id": pid, "missing": missing, "readmitted": outcome.readmitted(index, stays[1:])})
    return reasons, rows


def readmission_rate(rows):
    return sum(r["readmitted"] for r in rows) / len(rows) if rows else None
