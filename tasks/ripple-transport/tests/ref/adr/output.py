"""Result files: an .npz archive with the final field and the run's history."""

import json
import os
from pathlib import Path

import numpy as np

from . import __version__


def write_result(path, grid, q, t, step, history, extra=None):
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    mass, dts = history.arrays()
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, q=np.asarray(q, dtype=np.float64), t=np.float64(t), steps=np.int64(step),
                 mass=mass, dts=dts, x=grid.x_centres(), y=grid.y_centres(),
                 version=np.array(__version__))
    os.replace(tmp, path)
    if extra is not None:
        path.with_suffix(".json").write_text(json.dumps(extra, indent=2, sort_keys=True) + "\n")
    return path


def read_result(path):
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def format_summary(grid, t, step, history):
    s = history.summary()
    return (f"{grid.describe()}: t={t:.6g} after {step} steps, "
            f"dt in [{s['dt_min']:.3e}, {s['dt_max']:.3e}], mass drift {s['mass_drift']:.2e}")
