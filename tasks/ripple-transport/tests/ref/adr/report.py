"""A plain-text report of one result file: `python3 -m adr.report result.npz`.

Shows the grid, final time, step statistics, tracer extrema, the mass budget
and a coarse ASCII rendering of the field (useful over ssh on the cluster).
"""

import argparse
import sys

import numpy as np

from .budget import budget_from_history
from .output import read_result

SHADES = " .:-=+*#%@"


def ascii_field(q, width=48, height=20):
    """Downsample q to at most width x height characters, darker = larger."""
    ny, nx = q.shape
    rows = np.linspace(0, ny - 1, min(height, ny)).astype(int)
    cols = np.linspace(0, nx - 1, min(width, nx)).astype(int)
    sub = q[np.ix_(rows, cols)]
    lo, hi = float(np.min(sub)), float(np.max(sub))
    span = hi - lo if hi > lo else 1.0
    idx = np.clip(((sub - lo) / span * (len(SHADES) - 1)).round().astype(int), 0, len(SHADES) - 1)
    return "\n".join("".join(SHADES[i] for i in row) for row in idx[::-1])


def describe(data):
    q = np.asarray(data["q"])
    dts = np.asarray(data["dts"])
    lines = [
        f"grid        {q.shape[1]} x {q.shape[0]}",
        f"time        {float(data['t']):.6g} after {int(data['steps'])} steps",
    ]
    if dts.size:
        lines.append(f"dt          min {dts.min():.3e}  max {dts.max():.3e}  mean {dts.mean():.3e}")
    lines.append(f"tracer      min {q.min():.6g}  max {q.max():.6g}  mean {q.mean():.6g}")
    budget = budget_from_history(data["mass"], dts)
    lines.append(f"mass        change {budget['storage_change']:.3e}  largest step change "
                 f"{budget['max_step_change']:.3e}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="adr.report")
    p.add_argument("result")
    p.add_argument("--no-field", action="store_true", help="omit the ASCII rendering")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    data = read_result(args.result)
    print(describe(data))
    if not args.no_field:
        print(ascii_field(np.asarray(data["q"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
