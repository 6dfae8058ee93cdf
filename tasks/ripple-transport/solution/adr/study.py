"""Convergence studies on manufactured solutions (`python3 -m adr.study`)."""

import argparse
import json
import sys

from .config import merge, read_config, validate
from .diagnostics import observed_orders
from .driver import run
from .mms import discrete_errors


def refine(cfg, factor):
    out = merge(cfg, {})
    out["grid"]["nx"] = cfg["grid"]["nx"] * factor
    out["grid"]["ny"] = cfg["grid"]["ny"] * factor
    return out


def convergence(cfg, levels=3, norm="l2"):
    """Errors and observed orders on `levels` grids refined by two each time."""
    if "mms" not in cfg:
        raise ValueError("a convergence study needs an [mms] section")
    sizes, errors = [], []
    for level in range(levels):
        c = refine(cfg, 2 ** level)
        validate(c)
        q, t, step, history, model = run(c)
        sizes.append(c["grid"]["nx"])
        errors.append(discrete_errors(model.grid, q, model.mms, t)[norm])
    return {"nx": sizes, "errors": errors, "orders": observed_orders(sizes, errors)}


def main(argv=None):
    p = argparse.ArgumentParser(prog="adr.study")
    p.add_argument("config")
    p.add_argument("--levels", type=int, default=3)
    p.add_argument("--norm", choices=("l1", "l2", "linf"), default="l2")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    result = convergence(read_config(args.config), args.levels, args.norm)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
