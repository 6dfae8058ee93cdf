"""Checkpoints: the full state needed to continue a run exactly."""

import os
from pathlib import Path

import numpy as np

from .diagnostics import History

FORMAT = 2


class CheckpointError(ValueError):
    pass


def checkpoint_name(step):
    return f"ckpt_{step:06d}.npz"


def write_checkpoint(directory, step, t, q, history, cfg_digest):
    """Atomically write the state after `step` steps to directory/ckpt_<step>.npz."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / checkpoint_name(step)
    tmp = directory / (target.name + ".tmp")
    mass, dts = history.arrays()
    with open(tmp, "wb") as fh:
        np.savez(fh, format=np.int64(FORMAT), q=np.asarray(q, dtype=np.float64),
                 t=np.float64(t), step=np.int64(step), mass=mass, dts=dts,
                 digest=np.array(cfg_digest))
    os.replace(tmp, target)
    return target


def read_checkpoint(path, cfg_digest):
    """State (step, t, q, history) from a checkpoint written for the same physics."""
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{path}: unreadable checkpoint: {exc}") from None
    with data:
        if int(data["format"]) != FORMAT:
            raise CheckpointError(f"{path}: checkpoint format {int(data['format'])}, expected {FORMAT}")
        if str(data["digest"]) != cfg_digest:
            raise CheckpointError(f"{path}: written for a different configuration")
        q = np.array(data["q"], dtype=np.float64)
        t = float(data["t"])
        step = int(data["step"])
        history = History(data["mass"].tolist(), data["dts"].tolist())
    return step, t, q, history
