"""Solve the 1-D heat equation with the theta-method and report errors.

Usage: python3 run.py CONFIG.json -o RESULT.json
"""

import argparse
import json

from heatsolve import grid, initial, metrics, scheme


def solve_level(cfg, n, dt):
    length, alpha, bc = cfg["length"], cfg["alpha"], cfg["bc"]
    modes = [(int(k), float(a)) for k, a in cfg["modes"]]
    dx, xs = grid.make_grid(length, n)
    steps = grid.step_count(cfg["t_end"], dt)
    dt_used = dt
    u0 = initial.initial(bc, modes, xs, length)
    u = scheme.advance(u0, bc, alpha, dx, dt_used, cfg["theta"], steps)
    ref = initial.exact(bc, modes, xs, length, alpha, cfg["t_end"])
    return xs, u, steps, metrics.l2_error(u, ref, dx)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.config) as handle:
        cfg = json.load(handle)
    levels = []
    result = {}
    for i in range(int(cfg.get("refinements", 3))):
        n = cfg["n"] * 2 ** i
        dt = cfg["dt"]
        xs, u, steps, err = solve_level(cfg, n, dt)
        levels.append({"n": n, "dt": dt, "steps": steps, "l2_error": err})
        if i == 0:
            result.update({"x": xs, "u": u, "steps": steps, "l2_error": err})
    result["levels"] = levels
    if len(levels) >= 2:
        result["observed_order"] = metrics.observed_order(
            levels[-2]["l2_error"], levels[-1]["l2_error"])
    else:
        result["observed_order"] = None
    with open(args.output, "w") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
