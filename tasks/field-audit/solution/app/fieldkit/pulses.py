"""Find probe pulses on a drifting baseline."""

import math

import numpy as np

from . import config


def baseline(t, v):
    """The probe's resting level under each reading: a low percentile of a running window."""
    half = config.BASELINE_WINDOW / 2
    lo = np.searchsorted(t, t - half)
    hi = np.searchsorted(t, t + half)
    base = np.empty_like(v)
    for i in range(len(v)):
        base[i] = np.percentile(v[lo[i]:hi[i]], config.BASELINE_PERCENTILE)
    return base


def sample_period(t):
    """The probe's sampling period (median spacing), 0.1 s when unknown."""
    return float(np.median(np.diff(t))) if len(t) > 1 else 0.1


def find_pulses(rows, rise=None):
    """Return [(rising edge clock seconds, height above baseline)]."""
    rise = config.PULSE_RISE if rise is None else rise
    good = [(t, v) for t, v in rows if not math.isnan(v)]
    if not good:
        return []
    t = np.array([r[0] for r in good])
    v = np.array([r[1] for r in good])
    base = baseline(t, v)
    period = sample_period(t)
    above = (v - base) > rise
    pulses, i = [], 0
    while i < len(t):
        if above[i]:
            j = i
            while j + 1 < len(t) and above[j + 1] and t[j + 1] - t[j] < 2.5 * period:
                j += 1
            if t[j] - t[i] + period >= config.PULSE_MIN_LEN:
                pulses.append((float(t[i]), float(np.max(v[i:j + 1] - base[i:j + 1]))))
            i = j + 1
        else:
            i += 1
    return pulses
