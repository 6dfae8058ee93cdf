"""Hourly energy balance of a site: what the query API serves.

    import_kwh   energy drawn from the grid (sum of the site's meters)
    pv_kwh       energy produced by the site's PV inverters
    load_kwh     what the site consumed: import + PV
    temp_c       mean air temperature at the site's weather station
"""

import threading

from gridtel import energy, log
from gridtel.model import HOUR_S
from gridtel.timeutil import format_hour

_log = log.get("balance")


class Balances:
    """Computes balances from the store, caching finished answers."""

    def __init__(self, store):
        self.store = store
        self._cache = {}
        self._lock = threading.Lock()

    def invalidate(self, sites):
        """Called when records of ``sites`` were written."""
        # Balances of finished hours do not change once computed: keep them.
        del sites

    def balance(self, site, hour):
        key = (site, hour)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return dict(cached)
        result = self._compute(site, hour)
        with self._lock:
            self._cache[key] = result
        return dict(result)

    def _compute(self, site, hour):
        start, end = hour, hour + HOUR_S
        imported = 0.0
        for meter_id in self.store.meters_of(site):
            imported += energy.meter_energy(self.store.meter_readings(meter_id, start, end), hour)
        produced = 0.0
        for inverter_id in self.store.inverters_of(site):
            produced += energy.pv_energy(self.store.power_samples(inverter_id, start, end), hour)
        temp = energy.mean_temperature(self.store.observations(site, start, end))
        return {
            "site": site,
            "hour": format_hour(hour),
            "import_kwh": round(imported, 3),
            "pv_kwh": round(produced, 3),
            "load_kwh": round(imported + produced, 3),
            "temp_c": None if temp is None else round(temp, 2),
        }

    def day(self, site, day_start):
        """The 24 hourly balances of the UTC day starting at ``day_start``."""
        return [self.balance(site, day_start + k * HOUR_S) for k in range(24)]
