"""Parameter sweeps: run one base configuration over a grid of overrides.

A sweep file is JSON: {"base": "configs/plume.json", "vary": {"scheme.cfl":
[0.2, 0.4], "diffusion.d0": [0.0, 0.01]}, "outdir": "sweep-out"}.  Every
combination is validated, run and summarised in outdir/summary.json.
"""

import argparse
import itertools
import json
import sys
from pathlib import Path

from .config import ConfigError, merge, read_config, validate
from .diagnostics import relative_drift
from .driver import run


def set_dotted(cfg, dotted, value):
    keys = dotted.split(".")
    node = cfg
    for key in keys[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"sweep key {dotted!r}: {key!r} is not a table")
    node[keys[-1]] = value


def combinations(vary):
    names = sorted(vary)
    for values in itertools.product(*(vary[n] for n in names)):
        yield dict(zip(names, values))


def run_sweep(base_cfg, vary, outdir):
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for index, overrides in enumerate(combinations(vary)):
        cfg = merge(base_cfg, {})
        for dotted, value in overrides.items():
            set_dotted(cfg, dotted, value)
        validate(cfg)
        q, t, step, history, model = run(cfg, outdir / f"run{index:03d}.npz")
        rows.append({"index": index, "overrides": overrides, "t": t, "steps": step,
                     "min": float(q.min()), "max": float(q.max()),
                     "mass_drift": relative_drift(history.mass)})
    (outdir / "summary.json").write_text(json.dumps(rows, indent=2) + "\n")
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(prog="adr.sweep")
    p.add_argument("sweep", help="sweep description (.json)")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    spec = json.loads(Path(args.sweep).read_text())
    base = read_config(spec["base"])
    rows = run_sweep(base, spec.get("vary", {}), spec.get("outdir", "sweep-out"))
    for row in rows:
        print(f"{row['index']:3d} {row['overrides']} steps={row['steps']} drift={row['mass_drift']:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
