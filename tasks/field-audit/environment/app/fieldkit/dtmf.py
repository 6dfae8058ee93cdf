"""DTMF key detection on a mono signal."""

import numpy as np

ROWS = (697.0, 770.0, 852.0, 941.0)
COLS = (1209.0, 1336.0, 1477.0, 1633.0)
KEYS = ("123A", "456B", "789C", "*0#D")
STEP = 0.005
WINDOW = 0.03


def _powers(x, rate):
    win = int(WINDOW * rate)
    step = int(STEP * rate)
    n = max(0, (len(x) - win) // step + 1)
    idx = np.arange(win)[None, :] + step * np.arange(n)[:, None]
    frames = x[idx] * np.hanning(win)[None, :]
    t = np.arange(win) / rate
    freqs = ROWS + COLS
    basis = np.exp(-2j * np.pi * np.outer(freqs, t))
    return np.abs(frames @ basis.T) ** 2, np.sum(frames ** 2, axis=1) * win / 4 + 1e-12


def detect(x, rate, min_len=0.04):
    """Return [(onset seconds, key)] for each key press."""
    p, energy = _powers(x, rate)
    rows, cols = p[:, :4], p[:, 4:]
    ri, ci = rows.argmax(axis=1), cols.argmax(axis=1)
    rbest, cbest = rows.max(axis=1), cols.max(axis=1)
    rsorted, csorted = np.sort(rows, axis=1), np.sort(cols, axis=1)
    ok = ((rbest + cbest) > 0.7 * energy) & (rbest > 8 * rsorted[:, -2]) & (cbest > 8 * csorted[:, -2])
    keys = [KEYS[r][c] if o else None for r, c, o in zip(ri, ci, ok)]
    runs, cur, start = [], None, 0
    for i, k in enumerate([*keys, None]):
        if k != cur:
            if cur is not None:
                runs.append([start, i, cur])
            cur, start = k, i
    merged = []
    for run in runs:
        if merged and merged[-1][2] == run[2] and run[0] == merged[-1][1]:
            merged[-1][1] = run[1]
        else:
            merged.append(run)
    return [(a * STEP + WINDOW / 2 - 0.0075, k) for a, b, k in merged if (b - a) * STEP >= min_len - WINDOW / 2]
