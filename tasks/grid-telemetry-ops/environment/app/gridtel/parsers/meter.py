"""Substation revenue meters: CSV batches of cumulative register reads.

    meter_id,timestamp,register_kwh
    NORTH.M1,2026-03-28T17:00:00+01:00,91234.5
"""

import csv
import io

from gridtel.model import MeterReading
from gridtel.timeutil import TimestampError, parse_timestamp

HEADER = ["meter_id", "timestamp", "register_kwh"]
REGISTER_DIGITS = 6  # five integer digits and one decimal: wraps at 100000.0 kWh


def parse(text, result, feed_error):
    """Append a :class:`MeterReading` per data row to ``result``."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise feed_error("empty meter batch") from None
    if header != HEADER:
        raise feed_error(f"meter batch header must be {','.join(HEADER)}, got {','.join(header)}")
    for number, row in enumerate(reader, start=2):
        if not row or not any(cell.strip() for cell in row):
            continue
        line = ",".join(row)
        if len(row) != 3:
            result.reject(number, line, f"expected 3 fields, got {len(row)}")
            continue
        meter_id, stamp, register = (cell.strip() for cell in row)
        if "." not in meter_id:
            result.reject(number, line, "meter id must be <SITE>.<meter>")
            continue
        try:
            t = parse_timestamp(stamp)
            value = float(register)
        except (TimestampError, ValueError) as exc:
            result.reject(number, line, exc)
            continue
        if value < 0:
            result.reject(number, line, "negative register")
            continue
        result.records.append(MeterReading(meter_id, t, round(value, 1)))
