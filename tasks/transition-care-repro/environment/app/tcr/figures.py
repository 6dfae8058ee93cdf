"""Data behind Figure 1: 30-day readmission by age group and study arm."""

from . import config


def age_group(age):
    for label, lo, hi in config.AGE_GROUPS:
        if age >= lo and (hi is None or age < hi):
            return label
    return None


def figure1(members):
    cells = {label: {"program": [0, 0], "usual_care": [0, 0]} for label, _, _ in config.AGE_GROUPS}
    for m in members:
        label = age_group(m.age)
        if label is None:
            continue
        cell = cells[label]["program" if m.index.program else "usual_care"]
        cell[0] += 1
        cell[1] += 1 if m.readmitted else 0
    out = {}
    for label, arms in cells.items():
        out[label] = {}
        for arm, (n, events) in arms.items():
            out[label][arm] = {"n": n, "readmitted": events, "rate": events / n if n else None}
    return out
