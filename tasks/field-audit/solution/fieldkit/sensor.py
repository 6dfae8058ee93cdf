"""Probe trace reader: clock strings, either separator, decimal commas, bad readings."""

import math

from .keylog import clock_seconds


def read_trace(path):
    """Return [(clock seconds, value or nan)] in file order."""
    text = open(path, encoding="utf-8", errors="replace").read()
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        sep = ";" if ";" in line else ","
        parts = line.split(sep)
        if len(parts) < 2 or ":" not in parts[0]:
            continue
        try:
            t = clock_seconds(parts[0])
        except ValueError:
            continue
        try:
            v = float(parts[1].replace(",", "."))
        except ValueError:
            v = math.nan
        if v <= -9999 or math.isinf(v):
            v = math.nan
        rows.append((t, v))
    rows.sort()
    return rows
