#!/usr/bin/env python3
"""Public checks: the bundled plume case against its archived reference result.

python3 checks/public_checks.py   (from /app)

The hidden acceptance runs many more configurations (see the task
instruction); passing these two checks says little about them.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

APP = Path(__file__).resolve().parent.parent
CASE = APP / "configs" / "plume.json"
EXPECTED = APP / "cases" / "plume_expected.npz"


def run_case(out):
    proc = subprocess.run([sys.executable, str(APP / "run.py"), str(CASE), "-o", str(out), "-q"],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        print(proc.stderr)
        return None
    with np.load(out, allow_pickle=False) as data:
        return {key: np.array(data[key]) for key in data.files}


def main():
    cfg = json.loads(CASE.read_text())
    with np.load(EXPECTED, allow_pickle=False) as data:
        expected = {key: np.array(data[key]) for key in data.files}
    with tempfile.TemporaryDirectory() as tmp:
        got = run_case(Path(tmp) / "plume.npz")
    results = {}
    t_end = cfg["time"]["t_end"]
    results["runs"] = (got is not None and abs(float(got["t"]) - t_end) <= 1e-12
                       and abs(float(np.sum(got["dts"])) - t_end) <= 1e-12
                       and got["mass"].size == got["dts"].size + 1)
    if got is None:
        results["matches"] = False
    else:
        scale = float(np.max(np.abs(expected["q"])))
        err = float(np.max(np.abs(got["q"] - expected["q"]))) / scale if got["q"].shape == expected["q"].shape else float("inf")
        area = (cfg["grid"]["lx"] / cfg["grid"]["nx"]) * (cfg["grid"]["ly"] / cfg["grid"]["ny"])
        mass_ok = (int(got["steps"]) == int(expected["steps"])
                   and abs(float(got["mass"][-1]) - float(np.sum(got["q"])) * area) <= 1e-12 * abs(float(got["mass"][-1])))
        print(f"field error {err:.3e} (needs <= 1e-9), steps {int(got['steps'])} (expected {int(expected['steps'])})")
        results["matches"] = err <= 1e-9 and mass_ok
    for name, ok in results.items():
        print(f"{'PASS' if ok else 'FAIL'} {name}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
