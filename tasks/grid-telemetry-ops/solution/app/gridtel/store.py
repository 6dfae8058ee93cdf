"""The state store: everything the service knows lives in Redis (docs/operations.md).

Key layout (prefix ``gt`` by default):

    gt:sites                      set of site names
    gt:site:<site>:meters         set of meter ids of a site
    gt:site:<site>:inverters      set of inverter ids of a site
    gt:meter:<meter_id>           register reads: sorted set, score = t, member "t|register"
    gt:inv:<inverter_id>          power samples: sorted set, score = true t, member "device_t|kw"
    gt:wx:<station>               observations: sorted set, score = t, member "t|temp_c"
    gt:raw:<feed>                 archive of accepted raw batches (list, oldest first)
    gt:stats                      hash of counters

Sorted sets make a re-sent record the same member (de-duplication) and keep
records in time order whatever order they arrive in.
"""

import time

import redis

from gridtel import log

_log = log.get("store")
DERIVED = ("sites", "site", "meter", "inv", "wx")
"""Key families rebuilt from the raw archive by tools/backfill.py."""


class Store:
    """Typed access to the Redis keys of the service."""

    def __init__(self, url, prefix="gt"):
        self.url = url
        self.prefix = prefix
        self.r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=10)

    def key(self, *parts):
        return ":".join((self.prefix, *parts))

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

    def write_batch(self, feed, text, meters, samples, observations, archive=True):
        """Archive a raw batch and persist its records atomically (MULTI/EXEC)."""
        pipe = self.r.pipeline(transaction=True)
        if archive:
            pipe.rpush(self.key("raw", feed), text)
        for reading in meters:
            pipe.sadd(self.key("sites"), reading.site)
            pipe.sadd(self.key("site", reading.site, "meters"), reading.meter_id)
            pipe.zadd(self.key("meter", reading.meter_id), {f"{reading.t!r}|{reading.register_kwh!r}": reading.t})
        for sample in samples:
            pipe.sadd(self.key("sites"), sample.site)
            pipe.sadd(self.key("site", sample.site, "inverters"), sample.inverter_id)
            pipe.zadd(self.key("inv", sample.inverter_id), {f"{sample.device_t!r}|{sample.kw!r}": sample.t})
        for obs in observations:
            pipe.sadd(self.key("sites"), obs.site)
            pipe.zadd(self.key("wx", obs.station), {f"{obs.t!r}|{obs.temp_c!r}": obs.t})
        pipe.execute()

    def drop_derived(self):
        """Delete every key rebuilt from the archive (the archive and stats stay)."""
        for family in DERIVED:
            for name in self.r.scan_iter(match=self.key(family) + "*", count=1000):
                if not name.startswith(self.key("raw")):
                    self.r.delete(name)

    def count(self, name, amount=1):
        self.r.hincrby(self.key("stats"), name, amount)

    # -- reads -----------------------------------------------------------------------------

    def sites(self):
        return sorted(self.r.smembers(self.key("sites")))

    def meters_of(self, site):
        return sorted(self.r.smembers(self.key("site", site, "meters")))

    def inverters_of(self, site):
        return sorted(self.r.smembers(self.key("site", site, "inverters")))

    def _window(self, key, start, end):
        """Members with start <= score <= end, plus the nearest one on each side."""
        pipe = self.r.pipeline(transaction=False)
        pipe.zrevrangebyscore(key, f"({start}", "-inf", start=0, num=1, withscores=True)
        pipe.zrangebyscore(key, start, end, withscores=True)
        pipe.zrangebyscore(key, f"({end}", "+inf", start=0, num=1, withscores=True)
        before, inside, after = pipe.execute()
        return before + inside + after

    def meter_readings(self, meter_id, start, end):
        """``[(t, register_kwh)]`` in time order around [start, end]."""
        out = []
        for member, score in self._window(self.key("meter", meter_id), start, end):
            out.append((score, float(member.split("|")[1])))
        return out

    def power_samples(self, inverter_id, start, end):
        """``[(t, kw)]`` in true-time order around [start, end]."""
        out = []
        for member, score in self._window(self.key("inv", inverter_id), start, end):
            out.append((score, float(member.split("|")[1])))
        return out

    def observations(self, station, start, end):
        """``[(t, temp_c)]`` of a station with ``start <= t < end``."""
        items = self.r.zrangebyscore(self.key("wx", station), start, f"({end}", withscores=True)
        return [(score, float(member.split("|")[1])) for member, score in items]

    def archived(self, feed):
        """Every archived raw batch of ``feed``, oldest first."""
        return self.r.lrange(self.key("raw", feed), 0, -1)

    def stats(self):
        return {k: int(v) for k, v in self.r.hgetall(self.key("stats")).items()}
