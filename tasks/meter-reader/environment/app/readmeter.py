"""Read the number shown on seven-segment meter panels in PGM/PPM images.

Usage: python3 readmeter.py IMAGE [IMAGE ...] -o READINGS.json

Writes {"readings": {"<image file name>": "<reading>", ...}}.
"""

import argparse
import json
import os


def read_pgm(path):
    """Plain (P2) PGM -> list of rows of grey values 0..255."""
    with open(path) as handle:
        tokens = [tok for line in handle for tok in line.split("#")[0].split()]
    if tokens[0] != "P2":
        raise ValueError(f"{path}: only plain PGM (P2) is supported")
    cols, rows, maxval = int(tokens[1]), int(tokens[2]), int(tokens[3])
    values = [int(v) for v in tokens[4:4 + cols * rows]]
    return [values[r * cols:(r + 1) * cols] for r in range(rows)]


def read_panel(grey):
    # TODO: find the digits and decode them
    raise NotImplementedError("read_panel")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("images", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    readings = {}
    for path in args.images:
        readings[os.path.basename(path)] = read_panel(read_pgm(path))
    with open(args.output, "w") as handle:
        json.dump({"readings": readings}, handle, indent=2)


if __name__ == "__main__":
    main()
