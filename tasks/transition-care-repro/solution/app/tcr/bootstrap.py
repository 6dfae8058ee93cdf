"""Percentile bootstrap for the adjusted risk difference (patients resampled).

The paper reports 1,000 replicates with seed 20230115; this is slow in pure Python, so the
default pipeline does not run it (bootstrap_rd.py does)."""

import random

from . import margins


def resample(members, rng):
    n = len(members)
    return [members[rng.randrange(n)] for _ in range(n)]


def percentile(values, q):
    values = sorted(values)
    if not values:
        raise ValueError("no values")
    pos = q * (len(values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(values) - 1)
    frac = pos - lo
    return values[lo] * (1 - frac) + values[hi] * frac


def risk_difference_ci(members, replicates=1000, seed=20230115, level=0.95):
    rng = random.Random(seed)
    estimates = []
    failures = 0
    for _ in range(replicates):
        sample = resample(members, rng)
        try:
            estimates.append(margins.risk_difference(sample)["difference"])
        except (ValueError, ZeroDivisionError, OverflowError):
            failures += 1
    alpha = (1 - level) / 2
    return {
        "estimate": margins.risk_difference(members)["difference"],
        "ci_low": percentile(estimates, alpha),
        "ci_high": percentile(estimates, 1 - alpha),
        "replicates": len(estimates),
        "failed": failures,
    }
