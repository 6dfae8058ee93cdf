"""Cohort construction: index admissions, exclusions in the order of Figure S1."""

from dataclasses import dataclass

from . import config, dates, outcome
from .dedup import group_by_patient, unique_admissions


@dataclass
class Member:
    patient: object
    index: object
    age: int
    readmitted: bool


def plausible_weight(kg):
    lo, hi = config.WEIGHT_RANGE_KG
    return kg is not None and lo <= kg <= hi


def has_covariates(index):
    return index.charlson is not None and index.creatinine_mgdl is not None and plausible_weight(index.weight_kg)


def build(patients, admissions):
    """(members, flow counts)."""
    flow = {"admissions_raw": len(admissions)}
    unique = unique_admissions(admissions)
    flow["admissions_unique"] = len(unique)
    groups = group_by_patient(unique)
    flow["patients"] = len(groups)
    counts = {"excluded_under18": 0, "excluded_not_discharged_home": 0,
              "excluded_incomplete_followup": 0, "excluded_missing_covariates": 0}
    members = []
    for pid, stays in groups.items():
        index = next((s for s in stays if s.disposition == "home"), stays[0])
        patient = patients[pid]
        age = dates.completed_years(patient.birth_date, index.admit)
        if age < config.MIN_AGE:
            counts["excluded_under18"] += 1
        elif index.disposition != "home":
            counts["excluded_not_discharged_home"] += 1
        elif not outcome.follow_up_complete(index):
            counts["excluded_incomplete_followup"] += 1
        elif not has_covariates(index):
            counts["excluded_missing_covariates"] += 1
        else:
            members.append(Member(patient, index, age, outcome.readmitted(index, [s for s in stays if s is not index])))
    flow.update(counts)
    flow["analytic_cohort"] = len(members)
    flow["readmitted_30d"] = sum(m.readmitted for m in members)
    return members, flow
