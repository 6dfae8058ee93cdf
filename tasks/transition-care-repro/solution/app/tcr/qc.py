"""Data-quality summary of the raw extracts (written to results/qc.json by qc_report.py).

The summary counts missing-value codes, implausible values and duplicate identifiers per
extract. It reads the raw text, before harmonisation, so that coding problems stay visible."""

import csv
from collections import Counter
from pathlib import Path

from . import codebook, config

NUMERIC = {
    "admissions_w1.csv": {"charlson": (0, 40), "weight_lb": (60, 550), "creatinine_mgdl": (0.1, 20)},
    "admissions_w2.csv": {"cci": (0, 40), "weight_kg": (30, 250), "creat_umol_l": (9, 1800)},
}
WAVES = {"admissions_w1.csv": 1, "admissions_w2.csv": 2}


def _read(path):
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames or [], list(reader)


def column_summary(rows, column, wave, plausible):
    """Counts of missing codes, unparseable text and out-of-range values in one column."""
    missing = unparseable = out_of_range = 0
    values = []
    for row in rows:
        text = row.get(column, "")
        if codebook.is_missing(wave, text):
            missing += 1
            continue
        try:
            value = float(text)
        except ValueError:
            unparseable += 1
            continue
        lo, hi = plausible
        if not lo <= value <= hi:
            out_of_range += 1
        values.append(value)
    values.sort()
    median = values[len(values) // 2] if values else None
    return {"rows": len(rows), "missing": missing, "unparseable": unparseable,
            "out_of_range": out_of_range, "median": median}


def duplicate_ids(rows, column):
    counts = Counter(row[column] for row in rows)
    return sum(1 for c in counts.values() if c > 1)


def summarise(raw_dir):
    raw_dir = Path(raw_dir)
    report = {}
    for name, columns in NUMERIC.items():
        header, rows = _read(raw_dir / name)
        wave = WAVES[name]
        report[name] = {
            "columns": header,
            "rows": len(rows),
            "duplicate_adm_ids": duplicate_ids(rows, "adm_id"),
            "numeric": {c: column_summary(rows, c, wave, lim) for c, lim in columns.items()},
        }
    header, rows = _read(raw_dir / "patients.csv")
    report["patients.csv"] = {
        "columns": header,
        "rows": len(rows),
        "duplicate_patient_ids": duplicate_ids(rows, "patient_id"),
        "sex_codes": dict(Counter(r["sex"] for r in rows)),
    }
    return report


def cross_wave_overlap(raw_dir):
    """Admission ids present in both extracts."""
    raw_dir = Path(raw_dir)
    _, w1 = _read(raw_dir / "admissions_w1.csv")
    _, w2 = _read(raw_dir / "admissions_w2.csv")
    return len({r["adm_id"] for r in w1} & {r["adm_id"] for r in w2})


def follow_up_window():
    return {"data_end": config.DATA_END.isoformat(), "days": config.FOLLOW_UP_DAYS}
