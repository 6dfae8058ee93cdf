"""Monthly counts of index admissions and programme enrolment (Figure S2)."""

from collections import OrderedDict


def month_key(day):
    return f"{day.year:04d}-{day.month:02d}"


def monthly(members):
    counts = OrderedDict()
    for m in sorted(members, key=lambda m: m.index.admit):
        key = month_key(m.index.admit)
        cell = counts.setdefault(key, {"index_admissions": 0, "enrolled": 0, "readmitted": 0})
        cell["index_admissions"] += 1
        cell["enrolled"] += 1 if m.index.program else 0
        cell["readmitted"] += 1 if m.readmitted else 0
    return counts


def enrolment_share(counts):
    return {k: (v["enrolled"] / v["index_admissions"] if v["index_admissions"] else None) for k, v in counts.items()}
