"""Energy in an hour from what the devices report.

* Meters report a cumulative import register (kWh, wraps at 100000.0); the
  energy of an interval between consecutive reads is the register's increase
  modulo the wrap, spread uniformly over the interval.
* Inverters report instantaneous power (kW); energy is the time integral of the
  power, trapezoid rule between consecutive samples at most 600 s apart.
"""

from gridtel.model import HOUR_S

REGISTER_WRAP_KWH = 100000.0
MAX_SAMPLE_GAP_S = 600.0


def meter_energy(readings, hour):
    """kWh a meter imported in the UTC hour starting at ``hour``; ``readings`` in time order."""
    end = hour + HOUR_S
    total = 0.0
    for (t1, r1), (t2, r2) in zip(readings, readings[1:]):
        if t2 <= t1:
            continue
        a, b = max(t1, hour), min(t2, end)
        if b > a:
            total += round((r2 - r1) % REGISTER_WRAP_KWH, 1) * (b - a) / (t2 - t1)
    return total


def pv_energy(samples, hour):
    """kWh an inverter produced in the UTC hour starting at ``hour``; ``samples`` in time order."""
    end = hour + HOUR_S
    total = 0.0
    for (t1, p1), (t2, p2) in zip(samples, samples[1:]):
        if t2 <= t1 or t2 - t1 > MAX_SAMPLE_GAP_S:
            continue
        a, b = max(t1, hour), min(t2, end)
        if b > a:
            pa = p1 + (p2 - p1) * (a - t1) / (t2 - t1)
            pb = p1 + (p2 - p1) * (b - t1) / (t2 - t1)
            total += (pa + pb) / 2.0 * (b - a) / HOUR_S
    return total


def mean_temperature(observations):
    """Mean of ``(t, temp_c)`` observations, ``None`` without any."""
    if not observations:
        return None
    return sum(temp for _t, temp in observations) / len(observations)
