"""Data-quality summary of a site over a UTC day, for the operations dashboard.

Counts what is stored (reads, samples, observations), how many 15-minute meter
intervals have no read and how long the inverters were silent. It looks at the
stored data only: it cannot see what never arrived.
"""

from gridtel.model import HOUR_S

DAY_S = 24 * HOUR_S
METER_INTERVAL_S = 900
SILENCE_S = 600


def _meter_quality(readings, start, end):
    times = sorted({t for t, _reg in readings if start <= t < end})
    expected = DAY_S // METER_INTERVAL_S
    aligned = {int(t) // METER_INTERVAL_S for t in times if int(t) % METER_INTERVAL_S == 0}
    return {"reads": len(times), "expected": expected, "missing_intervals": max(0, expected - len(aligned))}


def _inverter_quality(samples, start, end):
    times = sorted({t for t, _kw in samples if start <= t < end})
    silent = 0.0
    for a, b in zip(times, times[1:]):
        if b - a > SILENCE_S:
            silent += b - a
    return {"samples": len(times), "silent_s": round(silent, 1)}


def site_day(store, site, day_start):
    """Quality summary of ``site`` for the UTC day starting at ``day_start``."""
    start, end = day_start, day_start + DAY_S
    meters = {m: _meter_quality(store.meter_readings(m, start, end), start, end) for m in store.meters_of(site)}
    inverters = {
        i: _inverter_quality(store.power_samples(i, start, end), start, end) for i in store.inverters_of(site)
    }
    observations = store.observations(site, start, end)
    return {
        "site": site,
        "meters": meters,
        "inverters": inverters,
        "weather_observations": len(observations),
    }
