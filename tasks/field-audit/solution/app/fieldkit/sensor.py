"""Probe trace reader."""

import math
from pathlib import Path

from . import config
from .clock import ClockError, clock_seconds

HEADER_WORDS = ("time",)


class Trace:
    """Readings of one probe file: ``rows`` is ``[(clock seconds, value or nan)]`` in time order."""

    def __init__(self, rows, skipped=0, source=""):
        self.rows = rows
        self.skipped = skipped
        self.source = source

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    @property
    def missing(self):
        return sum(1 for _, v in self.rows if math.isnan(v))

    def span(self):
        """(first, last) clock seconds, or None for an empty trace."""
        return (self.rows[0][0], self.rows[-1][0]) if self.rows else None

    def summary(self):
        span = self.span()
        return {"readings": len(self.rows), "missing": self.missing, "skipped_lines": self.skipped,
                "span_s": round(span[1] - span[0], 3) if span else 0.0}


def parse_value(text):
    """A reading: a number (decimal point or comma), or nan for anything else."""
    text = text.strip().replace(",", ".")
    try:
        v = float(text)
    except ValueError:
        return math.nan
    return math.nan if v <= config.NO_READING or math.isinf(v) else v


def parse_line(line):
    """``(clock seconds, value)`` of a data line, or None for a header line."""
    if line.startswith("#"):
        return None
    parts = line.split(";" if ";" in line else ",")
    if len(parts) < 2 or parts[0].strip().lower() in HEADER_WORDS:
        return None
    try:
        return clock_seconds(parts[0]), parse_value(parts[1])
    except ClockError:
        return None


def read_trace(path):
    """The probe trace of a file, sorted by time."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    rows, skipped = [], 0
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        row = parse_line(line)
        if row is None:
            skipped += 1
            continue
        rows.append(row)
    rows.sort()
    return Trace(rows, skipped, str(path))
