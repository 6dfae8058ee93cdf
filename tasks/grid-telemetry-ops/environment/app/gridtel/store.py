"""The state store: everything the service knows lives in Redis (docs/operations.md).

Key layout (prefix ``gt`` by default):

    gt:sites                      set of site names
    gt:site:<site>:meters         set of meter ids of a site
    gt:site:<site>:inverters      set of inverter ids of a site
    gt:meter:<meter_id>           register reads of a meter
    gt:inv:<inverter_id>          power samples of an inverter
    gt:wx:<station>               weather observations of a station
    gt:raw:<feed>                 archive of accepted raw batches (list, oldest first)
    gt:stats                      hash of counters
"""

import time

import redis

from gridtel import log

_log = log.get("store")


class Store:
    """Typed access to the Redis keys of the service."""

    def __init__(self, url, prefix="gt"):
        self.url = url
        self.prefix = prefix
        self.r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=10)

    # -- keys ------------------------------------------------------------------------------

    def key(self, *parts):
        return ":".join((self.prefix, *parts))

    # -- life cycle ------------------------------------------------------------------------

    def wait_ready(self, timeout_s=60.0):
        """Block until Redis answers PING (the Redis service may start after us)."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if self.r.ping():
                    return
            except redis.RedisError as exc:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis at {self.url} is not answering: {exc}") from exc
            time.sleep(0.5)

    # -- writes ----------------------------------------------------------------------------

    def archive(self, feed, text):
        """Keep the raw batch, so it can be replayed (tools/replay.py --from-archive)."""
        self.r.rpush(self.key("raw", feed), text)

    def write_records(self, meters, samples, observations):
        """Persist parsed records in one pipeline."""
        pipe = self.r.pipeline(transaction=False)
        for reading in meters:
            pipe.sadd(self.key("sites"), reading.site)
            pipe.sadd(self.key("site", reading.site, "meters"), reading.meter_id)
            pipe.rpush(self.key("meter", reading.meter_id), f"{reading.t!r}|{reading.register_kwh!r}")
        for sample in samples:
            pipe.sadd(self.key("sites"), sample.site)
            pipe.sadd(self.key("site", sample.site, "inverters"), sample.inverter_id)
            pipe.rpush(
                self.key("inv", sample.inverter_id),
                f"{sample.t!r}|{sample.kw!r}|{sample.device_t!r}",
            )
        for obs in observations:
            pipe.sadd(self.key("sites"), obs.site)
            pipe.rpush(self.key("wx", obs.station), f"{obs.t!r}|{obs.temp_c!r}")
        pipe.execute()

    def count(self, name, amount=1):
        self.r.hincrby(self.key("stats"), name, amount)

    # -- reads -----------------------------------------------------------------------------

    def sites(self):
        return sorted(self.r.smembers(self.key("sites")))

    def meters_of(self, site):
        return sorted(self.r.smembers(self.key("site", site, "meters")))

    def inverters_of(self, site):
        return sorted(self.r.smembers(self.key("site", site, "inverters")))

    def meter_readings(self, meter_id, start=None, end=None):
        """``[(t, register_kwh)]`` of a meter as stored."""
        del start, end  # the list is small enough to read whole
        out = []
        for item in self.r.lrange(self.key("meter", meter_id), 0, -1):
            t, reg = item.split("|")
            out.append((float(t), float(reg)))
        return out

    def power_samples(self, inverter_id, start=None, end=None):
        """``[(t, kw)]`` of an inverter as stored."""
        del start, end
        out = []
        for item in self.r.lrange(self.key("inv", inverter_id), 0, -1):
            t, kw, _device_t = item.split("|")
            out.append((float(t), float(kw)))
        return out

    def observations(self, station, start, end):
        """``[(t, temp_c)]`` of a station with ``start <= t < end``."""
        out = []
        for item in self.r.lrange(self.key("wx", station), 0, -1):
            t, temp = item.split("|")
            if start <= float(t) < end:
                out.append((float(t), float(temp)))
        return out

    def archived(self, feed):
        """Every archived raw batch of ``feed``, oldest first."""
        return self.r.lrange(self.key("raw", feed), 0, -1)

    def stats(self):
        return {k: int(v) for k, v in self.r.hgetall(self.key("stats")).items()}
