"""Find probe pulses on a drifting baseline."""

import math

import numpy as np


def find_pulses(rows, window=10.0, rise=2.0, min_len=0.3):
    """Return [(rising edge clock seconds, height above baseline)]."""
    good = [(t, v) for t, v in rows if not math.isnan(v)]
    if not good:
        return []
    t = np.array([r[0] for r in good])
    v = np.array([r[1] for r in good])
    base = np.empty_like(v)
    lo = np.searchsorted(t, t - window / 2)
    hi = np.searchsorted(t, t + window / 2)
    for i in range(len(v)):
        base[i] = np.percentile(v[lo[i]:hi[i]], 20)
    period = float(np.median(np.diff(t))) if len(t) > 1 else 0.1
    above = (v - base) > rise
    pulses, i = [], 0
    while i < len(t):
        if above[i]:
            j = i
            while j + 1 < len(t) and above[j + 1] and t[j + 1] - t[j] < 2.5 * period:
                j += 1
            if t[j] - t[i] + period >= min_len:
                pulses.append((float(t[i]), float(np.max(v[i:j + 1] - base[i:j + 1]))))
            i = j + 1
        else:
            i += 1
    return pulses
