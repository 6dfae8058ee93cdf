"""Tracer budgets: storage change against boundary fluxes and reactions.

For a closed domain the storage change over a run must vanish (up to the
reaction term); for open (Dirichlet) sides it must equal the time integral of
the net inflow.  `python3 -m adr.budget result.npz` prints the budget of a
finished run from its mass history.
"""

import argparse
import json
import sys

import numpy as np

from .output import read_result


def budget_from_history(mass, dts):
    """Storage change, largest single-step change and the mean rate of change."""
    mass = np.asarray(mass, dtype=float)
    dts = np.asarray(dts, dtype=float)
    if mass.size < 2:
        return {"storage_change": 0.0, "max_step_change": 0.0, "mean_rate": 0.0, "duration": 0.0}
    steps = np.diff(mass)
    duration = float(np.sum(dts))
    return {
        "storage_change": float(mass[-1] - mass[0]),
        "relative_change": float((mass[-1] - mass[0]) / mass[0]) if mass[0] else float("nan"),
        "max_step_change": float(np.max(np.abs(steps))),
        "mean_rate": float((mass[-1] - mass[0]) / duration) if duration else 0.0,
        "duration": duration,
    }


def closed_budget_ok(mass, tolerance=1e-12):
    """True when a closed, reaction-free run kept its mass to `tolerance`."""
    report = budget_from_history(mass, np.ones(max(len(mass) - 1, 0)))
    ref = abs(float(mass[0])) if len(mass) else 1.0
    return abs(report["storage_change"]) <= tolerance * max(ref, 1e-300)


def main(argv=None):
    p = argparse.ArgumentParser(prog="adr.budget", description="Mass budget of a result file.")
    p.add_argument("result", help="a result .npz written by run.py")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    data = read_result(args.result)
    report = budget_from_history(data["mass"], data["dts"])
    report["steps"] = int(data["steps"])
    report["t"] = float(data["t"])
    print(json.dumps(report, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
