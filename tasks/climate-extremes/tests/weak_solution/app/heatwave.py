"""Weak baseline (public checks only): plain CSV with a `time` column, no wrappers,
no manifests, missing readings treated as 0, consecutive rows assumed to be days."""

import argparse
import csv
import json


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.input, newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_station = {}
    for row in rows:
        value = float(row["tmax"]) if row["tmax"] not in ("", "NaN") else 0.0
        by_station.setdefault(row["station"], []).append((row["time"], value))
    result = {"stations": {}}
    for station, series in sorted(by_station.items()):
        values = sorted(v for _, v in series)
        rank = 0.9 * (len(values) - 1)
        low = int(rank)
        high = min(low + 1, len(values) - 1)
        limit = values[low] + (values[high] - values[low]) * (rank - low)
        events, run = [], []
        for day, value in series + [("", -1e9)]:
            if value > limit:
                run.append((day, value))
                continue
            if len(run) >= 3:
                events.append({"start": run[0][0], "end": run[-1][0], "length": len(run),
                               "peak": max(v for _, v in run)})
            run = []
        result["stations"][station] = {"threshold": round(limit, 2), "events": events}
    with open(args.output, "w") as handle:
        json.dump(result, handle, indent=2)


if __name__ == "__main__":
    main()
