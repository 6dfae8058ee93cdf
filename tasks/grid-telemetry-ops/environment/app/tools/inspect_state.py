"""Look at the service's Redis state: ``python3 -m tools.inspect_state [SITE]``."""

import sys

from gridtel import config
from gridtel.store import Store

EVER = 2**33  # epoch seconds far in the future: every record


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    conf = config.load()
    store = Store(conf.redis_url, conf.key_prefix)
    if not argv:
        print("sites:", ", ".join(store.sites()) or "(none)")
        for name, value in sorted(store.stats().items()):
            print(f"  {name:24s} {value}")
        for feed in ("meter", "inverter", "weather"):
            print(f"  archived {feed:15s} {store.r.llen(store.key('raw', feed))}")
        return 0
    site = argv[0]
    for meter_id in store.meters_of(site):
        readings = store.meter_readings(meter_id, 0, EVER)
        print(f"{meter_id}: {len(readings)} reads")
    for inverter_id in store.inverters_of(site):
        samples = store.power_samples(inverter_id, 0, EVER)
        print(f"{inverter_id}: {len(samples)} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
