"""Detect heatwaves in daily station temperature records (reference solution).

Usage: python3 heatwave.py INPUT -o OUTPUT.json
"""

import argparse
import base64
import csv
import datetime as dt
import gzip
import io
import json
import math
from pathlib import Path

DATE_COLUMNS = ("time", "valid_time")
MIN_RUN = 3


def parse_reading(text):
    text = (text or "").strip()
    if not text:
        return None
    value = float(text)
    return None if math.isnan(value) else value


def csv_records(text):
    reader = csv.DictReader(io.StringIO(text))
    fields = reader.fieldnames or []
    date_column = next((c for c in DATE_COLUMNS if c in fields), None)
    if date_column is None or "station" not in fields or "tmax" not in fields:
        raise SystemExit(f"unrecognised header: {fields}")
    for row in reader:
        day = dt.date.fromisoformat(row[date_column].strip()[:10])
        yield row["station"].strip(), day, parse_reading(row["tmax"])


def load(path):
    path = Path(path)
    if path.suffix == ".json":
        manifest = json.loads(path.read_text())
        for part in manifest["parts"]:
            yield from load(path.parent / part)
    elif path.suffix == ".b64":
        raw = gzip.decompress(base64.b64decode(path.read_bytes()))
        yield from csv_records(raw.decode("utf-8"))
    else:
        yield from csv_records(path.read_text())


def percentile90(values):
    ordered = sorted(values)
    rank = 0.9 * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def events(readings, limit):
    found, run = [], []
    previous = None
    for day in sorted(readings):
        value = readings[day]
        contiguous = previous is not None and (day - previous).days == 1
        if value is not None and value > limit and (contiguous or not run):
            run.append((day, value))
        else:
            found.extend(close(run))
            run = [(day, value)] if value is not None and value > limit else []
        previous = day
    found.extend(close(run))
    return found


def close(run):
    if len(run) < MIN_RUN:
        return []
    return [{
        "start": run[0][0].isoformat(),
        "end": run[-1][0].isoformat(),
        "length": len(run),
        "peak": max(value for _, value in run),
    }]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    stations = {}
    for station, day, value in load(args.input):
        stations.setdefault(station, {})[day] = value
    result = {"stations": {}}
    for station in sorted(stations):
        readings = stations[station]
        present = [v for v in readings.values() if v is not None]
        limit = percentile90(present)
        result["stations"][station] = {
            "threshold": round(limit, 2),
            "events": events(readings, limit),
        }
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
