"""Probe trace reader."""

import math

from .keylog import clock_seconds


def read_trace(path):
    """Return [(clock seconds, value or nan)] in file order."""
    text = open(path, encoding="utf-8", errors="replace").read()
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("time"):
            continue
        parts = line.split(",")
        t = clock_seconds(parts[0])
        v = float(parts[1]) if parts[1] else math.nan
        rows.append((t, v))
    rows.sort()
    return rows
