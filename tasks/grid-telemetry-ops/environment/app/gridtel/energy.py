"""Energy in an hour from what the devices report.

* Meters report a cumulative import register (kWh); the energy of an interval is
  the register's increase between two consecutive reads.
* Inverters report instantaneous power (kW); energy is the time integral of the
  power, trapezoid rule between consecutive samples.
"""

from gridtel.model import HOUR_S, hour_floor

REGISTER_WRAP_KWH = 100000.0
MAX_SAMPLE_GAP_S = 600.0


def meter_energy(readings, hour):
    """kWh a meter imported in the UTC hour starting at ``hour``.

    ``readings`` are ``(t, register_kwh)`` pairs as stored.
    """
    total = 0.0
    previous = None
    for t, register in readings:
        if previous is not None:
            delta = register - previous[1]
            if delta < 0:
                # a register never runs backwards: a glitch, ignore the interval
                delta = 0.0
            if hour_floor(t) == hour:
                total += delta
        previous = (t, register)
    return total


def pv_energy(samples, hour):
    """kWh an inverter produced in the UTC hour starting at ``hour``.

    ``samples`` are ``(t, kw)`` pairs as stored.
    """
    total = 0.0
    previous = None
    for t, kw in samples:
        if previous is not None:
            t0, kw0 = previous
            dt = t - t0
            if dt > 0 and hour_floor(t0) == hour:
                total += (kw0 + kw) / 2.0 * dt / HOUR_S
        previous = (t, kw)
    return total


def mean_temperature(observations):
    """Mean of ``(t, temp_c)`` observations, ``None`` without any."""
    if not observations:
        return None
    return sum(temp for _t, temp in observations) / len(observations)
