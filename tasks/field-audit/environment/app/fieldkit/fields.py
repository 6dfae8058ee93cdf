"""The labelled fields of a form and their checks."""

import re

from .clock import ClockError, clock_seconds

LABELS = ("CASE", "SITE", "START", "UNITS", "INSP")
TITLE = "FIELD INSPECTION"
_CASE = re.compile(r"^[A-Z0-9]{4,8}$")
_SITE = re.compile(r"^\d{4}$")


def parse_fields(lines):
    """``{label: value}`` from text lines of the form ``LABEL VALUE``; other lines are ignored."""
    fields = {}
    for line in lines:
        parts = line.split()
        if len(parts) >= 2 and parts[0] in LABELS:
            fields[parts[0]] = "".join(parts[1:])
    return fields


def start_seconds(fields):
    """START as seconds since midnight, or None."""
    try:
        return clock_seconds(fields.get("START", ""))
    except ClockError:
        return None


def unit_count(fields):
    """UNITS as an integer, or None."""
    value = fields.get("UNITS", "")
    return int(value) if value.isdigit() else None


def problems(fields):
    """Human-readable reasons to doubt a reading (empty when every field looks right)."""
    out = [f"missing {label}" for label in LABELS if label not in fields]
    if "CASE" in fields and not _CASE.match(fields["CASE"]):
        out.append(f"odd CASE {fields['CASE']!r}")
    if "SITE" in fields and not _SITE.match(fields["SITE"]):
        out.append(f"odd SITE {fields['SITE']!r}")
    if "START" in fields and start_seconds(fields) is None:
        out.append(f"odd START {fields['START']!r}")
    if "UNITS" in fields and unit_count(fields) is None:
        out.append(f"odd UNITS {fields['UNITS']!r}")
    return out
