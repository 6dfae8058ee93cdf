"""Detect heatwaves in daily station temperature records.

Usage: python3 heatwave.py INPUT -o OUTPUT.json
"""

import argparse
import csv
import json


def read_rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def threshold(values):
    # TODO: 90th percentile with linear interpolation
    raise NotImplementedError("threshold")


def find_events(days, limit):
    # TODO: runs of >= 3 consecutive calendar days strictly above the threshold
    raise NotImplementedError("find_events")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    rows = read_rows(args.input)
    result = {"stations": {}}
    # TODO: group by station, compute thresholds and events
    raise NotImplementedError(f"{len(rows)} rows read, nothing computed")
    with open(args.output, "w") as handle:
        json.dump(result, handle, indent=2)


if __name__ == "__main__":
    main()
