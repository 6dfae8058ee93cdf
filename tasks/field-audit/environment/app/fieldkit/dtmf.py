"""DTMF key detection on a mono signal."""

import numpy as np

from . import config
from .spectrum import tone_powers

ROWS = (697.0, 770.0, 852.0, 941.0)
COLS = (1209.0, 1336.0, 1477.0, 1633.0)
KEYS = ("123A", "456B", "789C", "*0#D")


def frame_keys(x, rate):
    """The key heard in each analysis frame, or None."""
    p, energy = tone_powers(x, rate, ROWS + COLS, config.DTMF_WINDOW, config.DTMF_STEP)
    rows, cols = p[:, :4], p[:, 4:]
    ri, ci = rows.argmax(axis=1), cols.argmax(axis=1)
    rbest, cbest = rows.max(axis=1), cols.max(axis=1)
    rsorted, csorted = np.sort(rows, axis=1), np.sort(cols, axis=1)
    margin = config.DTMF_MARGIN
    ok = ((rbest + cbest) > config.DTMF_TONE_SHARE * energy) & (rbest > margin * rsorted[:, -2]) & (
        cbest > margin * csorted[:, -2])
    return [KEYS[r][c] if o else None for r, c, o in zip(ri, ci, ok)]


def runs(keys):
    """``[[first frame, stop frame, key]]`` for each run of one key."""
    out, cur, start = [], None, 0
    for i, k in enumerate([*keys, None]):
        if k != cur:
            if cur is not None:
                out.append([start, i, cur])
            cur, start = k, i
    return out


def merge_runs(found):
    """Join runs of the same key that touch."""
    merged = []
    for run in found:
        if merged and merged[-1][2] == run[2] and run[0] == merged[-1][1]:
            merged[-1][1] = run[1]
        else:
            merged.append(run)
    return merged


def detect(x, rate, min_len=None):
    """Return [(onset seconds, key)] for each key press."""
    min_len = config.DTMF_MIN_PRESS if min_len is None else min_len
    step, window = config.DTMF_STEP, config.DTMF_WINDOW
    merged = merge_runs(runs(frame_keys(x, rate)))
    return [(a * step + window / 2 - 0.0075, k) for a, b, k in merged if (b - a) * step >= min_len - window / 2]
