"""Seeded generator of station records and their expected heatwave report."""

import base64
import csv
import datetime as dt
import gzip
import io
import json
import math
import random

START = dt.date(2021, 5, 1)


def station_series(rng, days, missing_rate, gap_rate):
    """One station's {date: tmax or None}, with seasonal signal and planted heat."""
    base = rng.uniform(18.0, 28.0)
    series = {}
    heat_left = 0
    for offset in range(days):
        day = START + dt.timedelta(days=offset)
        if rng.random() < gap_rate:
            continue
        if heat_left == 0 and rng.random() < 0.05:
            heat_left = rng.randint(2, 6)
        value = base + 6 * math.sin(offset / 58.0) + rng.gauss(0, 2.2)
        if heat_left:
            value += rng.uniform(6.0, 10.0)
            heat_left -= 1
        series[day] = None if rng.random() < missing_rate else round(value, 1)
    return series


def dataset(seed, stations=3, days=150, missing_rate=0.0, gap_rate=0.0):
    rng = random.Random(seed)
    names = sorted({f"ST{rng.randint(100, 999)}" for _ in range(stations * 3)})[:stations]
    return {name: station_series(rng, days, missing_rate, gap_rate) for name in names}


def expected_report(data):
    report = {}
    for name, series in sorted(data.items()):
        values = sorted(v for v in series.values() if v is not None)
        position = 0.9 * (len(values) - 1)
        below = int(position)
        above = min(below + 1, len(values) - 1)
        limit = values[below] + (values[above] - values[below]) * (position - below)
        runs, current = [], []
        for day in sorted(series):
            hot = series[day] is not None and series[day] > limit
            follows = bool(current) and (day - current[-1]).days == 1
            if hot and (follows or not current):
                current.append(day)
                continue
            runs.append(current)
            current = [day] if hot else []
        runs.append(current)
        events = [
            {
                "start": run[0].isoformat(),
                "end": run[-1].isoformat(),
                "length": len(run),
                "peak": max(series[d] for d in run),
            }
            for run in runs
            if len(run) >= 3
        ]
        report[name] = {"threshold": round(limit, 2), "events": events}
    return {"stations": report}


def to_csv(data, date_column="time", shuffle_seed=None, missing_token=""):
    rows = [
        (name, day, value)
        for name, series in sorted(data.items())
        for day, value in sorted(series.items())
    ]
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([date_column, "station", "tmax"])
    for i, (name, day, value) in enumerate(rows):
        token = missing_token if i % 2 else "NaN"
        writer.writerow([day.isoformat(), name, token if value is None else value])
    return out.getvalue()


def to_b64(csv_text):
    return base64.b64encode(gzip.compress(csv_text.encode("utf-8"))).decode("ascii")


def split(data, parts):
    """Split each station's days into `parts` interleaved chunks."""
    chunks = [dict() for _ in range(parts)]
    for name, series in data.items():
        for i, day in enumerate(sorted(series)):
            chunks[i % parts].setdefault(name, {})[day] = series[day]
    return chunks


def manifest(parts):
    return json.dumps({"parts": parts})
