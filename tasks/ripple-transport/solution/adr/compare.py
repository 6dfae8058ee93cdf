"""Compare two result files: `python3 -m adr.compare a.npz b.npz`.

Prints the largest absolute and relative field difference, whether the two
runs are bit-for-bit identical (field, time, step count and histories) and
the difference of their mass histories.  Exit status 0 when identical, 1 when
they differ, 2 when a file cannot be read.
"""

import argparse
import sys

import numpy as np

from .output import read_result

COMPARED = ("q", "t", "steps", "mass", "dts")


def differences(a, b):
    report = {}
    qa, qb = np.asarray(a["q"]), np.asarray(b["q"])
    if qa.shape != qb.shape:
        report["shape"] = (qa.shape, qb.shape)
        return report
    diff = np.abs(qa - qb)
    scale = max(float(np.max(np.abs(qa))), 1e-300)
    report["max_abs"] = float(np.max(diff))
    report["max_rel"] = float(np.max(diff)) / scale
    report["t"] = (float(a["t"]), float(b["t"]))
    report["steps"] = (int(a["steps"]), int(b["steps"]))
    ma, mb = np.asarray(a["mass"]), np.asarray(b["mass"])
    if ma.shape == mb.shape:
        report["mass_history_max_diff"] = float(np.max(np.abs(ma - mb))) if ma.size else 0.0
    return report


def bitwise_identical(a, b):
    for key in COMPARED:
        x, y = np.asarray(a[key]), np.asarray(b[key])
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            return False
    return True


def main(argv=None):
    p = argparse.ArgumentParser(prog="adr.compare")
    p.add_argument("first")
    p.add_argument("second")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        a, b = read_result(args.first), read_result(args.second)
    except (OSError, ValueError, KeyError) as exc:
        print(f"adr.compare: {exc}", file=sys.stderr)
        return 2
    for key, value in differences(a, b).items():
        print(f"{key:>22}: {value}")
    same = bitwise_identical(a, b)
    print("bit-for-bit identical" if same else "results differ")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
