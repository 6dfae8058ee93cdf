"""Readers for the raw registry extracts (patients, wave 1 and wave 2 admissions)."""

import csv
from pathlib import Path

from . import codebook, config, dates
from .records import Admission, Patient


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def load_patients(raw_dir):
    """Patient rows keyed by id (the file repeats some rows verbatim)."""
    patients = {}
    for row in read_csv(Path(raw_dir) / "patients.csv"):
        pid = row["patient_id"].strip()
        patients[pid] = Patient(pid, dates.parse_iso(row["birth_date"]), codebook.sex(row["sex"]),
                                row["region"].strip())
    return patients


def _wave1(row):
    weight = codebook.number(1, row["weight_lb"])
    return Admission(
        adm_id=row["adm_id"].strip(),
        patient_id=row["patient_id"].strip(),
        admit=dates.parse_iso(row["admit_date"]),
        discharge=dates.parse_iso(row["discharge_date"]),
        disposition=codebook.disposition(1, row["disposition"]),
        program=codebook.enrolled(1, row["tcp_enrolled"]),
        charlson=codebook.number(1, row["charlson"]),
        weight_kg=None if weight is None else weight * config.LB_TO_KG,
        creatinine_mgdl=codebook.number(1, row["creatinine_mgdl"]),
        wave=1,
    )


def _wave2(row):
    creat = codebook.number(2, row["creat_umol_l"])
    return Admission(
        adm_id=row["adm_id"].strip(),
        patient_id=row["patient_id"].strip(),
        admit=dates.parse_wave2(row["admit_dt"]),
        discharge=dates.parse_wave2(row["disch_dt"]),
        disposition=codebook.disposition(2, row["disch_status"]),
        program=codebook.enrolled(2, row["tcp"]),
        charlson=codebook.number(2, row["cci"]),
        weight_kg=codebook.number(2, row["weight_kg"]),
        creatinine_mgdl=creat,
        wave=2,
    )


def load_admissions(raw_dir):
    """All admission rows of both extracts, harmonised, in file order."""
    raw_dir = Path(raw_dir)
    rows = [_wave1(r) for r in read_csv(raw_dir / "admissions_w1.csv")]
    rows += [_wave2(r) for r in read_csv(raw_dir / "admissions_w2.csv")]
    return rows
