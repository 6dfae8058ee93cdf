"""Seeded telemetry for grid-telemetry-ops: feed batches exactly as gateways send them.

Every scenario is a list of ``(feed, text)`` batches plus the site-hours it is
graded on. The reference answers are computed from the batch texts themselves
(see ``reference.py``), never from the generator's internal state, so what is
graded is exactly what was sent.

Also the authoring tool of the bundled data: ``python3 generate.py history DIR``
writes the spool the live service replays at boot, ``sample DIR`` the public
sample (both from fixed seeds).
"""

import json
import math
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

UTC = timezone.utc
WRAP = 100000.0
HOUR = 3600


def last_sunday(year, month):
    day = datetime(year, month + 1, 1, tzinfo=UTC) - timedelta(days=1)
    while day.weekday() != 6:
        day -= timedelta(days=1)
    return day


def cet_offset(t):
    """UTC offset (hours) of Europe/Berlin at epoch ``t``: EU rule, switch at 01:00 UTC."""
    when = datetime.fromtimestamp(t, UTC)
    start = last_sunday(when.year, 3).replace(hour=1)
    end = last_sunday(when.year, 10).replace(hour=1)
    return 2 if start <= when < end else 1


def local_iso(t, style=0):
    off = cet_offset(t)
    local = datetime.fromtimestamp(t, UTC) + timedelta(hours=off)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    if style == 1:
        return text + f"+0{off}00"
    return text + f"+0{off}:00"


def utc_iso(t):
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def epoch(year, month, day, hour=0):
    return int(datetime(year, month, day, hour, tzinfo=UTC).timestamp())


def pv_kw(t, peak, phase):
    """A clear-sky-ish PV curve with cloud dips; zero at night (UTC 05-18 window)."""
    hod = (t % 86400) / 3600.0
    if hod < 5.0 or hod > 18.0:
        return 0.0
    base = peak * math.sin(math.pi * (hod - 5.0) / 13.0) ** 1.5
    cloud = 1.0 - 0.35 * max(0.0, math.sin(t / 1700.0 + phase)) ** 4
    return base * cloud


class Site:
    """One site's devices and their true behaviour."""

    def __init__(self, rng, name, start, hours, register0=None, pv_step=(40, 80)):
        self.rng = rng
        self.pv_step = pv_step
        self.name = name
        self.start = start
        self.end = start + hours * HOUR
        self.meters = [f"{name}.M{i}" for i in (1, 2)]
        self.inverters = [f"{name}.PV{i}" for i in (1, 2)]
        self.gateway = {inv: f"gw-{name.lower()}-{i}" for i, inv in enumerate(self.inverters)}
        self.registers = {
            m: (register0 - rng.uniform(0, 2500) if register0 is not None else rng.uniform(1000, 90000))
            for m in self.meters
        }
        self.load_kw = {m: rng.uniform(150, 900) for m in self.meters}
        self.peak = {inv: rng.uniform(200, 1800) for inv in self.inverters}
        self.phase = {inv: rng.uniform(0, 6.28) for inv in self.inverters}

    def meter_rows(self, drop_hours=()):
        """(meter, t, register) every 15 minutes; readings inside ``drop_hours`` spans are lost."""
        rows = []
        for m in self.meters:
            reg = self.registers[m]
            t = self.start
            while t <= self.end:
                lost = any(a <= t < b for a, b in drop_hours)
                if not lost:
                    rows.append((m, t, round(reg % WRAP, 1)))
                hod = (t % 86400) / 3600.0
                kw = self.load_kw[m] * (0.7 + 0.3 * math.sin(math.pi * hod / 12.0) ** 2)
                kw *= self.rng.uniform(0.9, 1.1)
                reg += kw * 0.25
                t += 900
        return rows

    def inverter_rows(self, outages=()):
        """(inverter, true t, kW): roughly once a minute with jitter; outages send nothing."""
        rows = []
        for inv in self.inverters:
            t = float(self.start) + self.rng.uniform(0, 30)
            while t < self.end:
                if not any(a <= t < b for a, b in outages):
                    rows.append((inv, round(t, 1), round(pv_kw(t, self.peak[inv], self.phase[inv]), 3)))
                t += self.rng.uniform(*self.pv_step)
        return rows

    def weather_rows(self):
        rows = []
        t = self.start
        while t < self.end:
            hod = (t % 86400) / 3600.0
            temp = 8.0 + 7.0 * math.sin(math.pi * (hod - 8.0) / 12.0) + self.rng.uniform(-0.5, 0.5)
            rows.append((self.name, t, round(temp, 2)))
            t += 600
        return rows


# -- rendering ---------------------------------------------------------------------------------


def render_meter(rows, rng, style_mix=False):
    lines = ["meter_id,timestamp,register_kwh"]
    for m, t, reg in rows:
        style = rng.choice((0, 1)) if style_mix else 0
        stamp = utc_iso(t) if style_mix and rng.random() < 0.2 else local_iso(t, style)
        lines.append(f"{m},{stamp},{reg:.1f}")
    return "\n".join(lines) + "\n"


POWER_UNITS = {"W": 1000.0, "kW": 1.0, "MW": 0.001}


def render_inverter(rows, gateway, offset_s, rng, units=("kW",)):
    lines = [json.dumps({"gateway": gateway, "clock_offset_s": offset_s})]
    for inv, t, kw in rows:
        unit = rng.choice(units)
        value = round(kw * POWER_UNITS[unit], 6)
        lines.append(json.dumps({"inv": inv, "t": round(t + offset_s, 1), "p": value, "unit": unit}))
    return "\n".join(lines) + "\n"


def render_weather(rows, rng, units=("C",)):
    lines = []
    for station, t, temp in rows:
        unit = rng.choice(units)
        value = {"C": temp, "F": temp * 9.0 / 5.0 + 32.0, "K": temp + 273.15}[unit]
        lines.append(f"station={station} ts={local_iso(t)} temp={value:.2f}{unit} ghi={rng.randint(0, 900)}")
    return "\n".join(lines) + "\n"


def chunks(rows, size):
    return [rows[i : i + size] for i in range(0, len(rows), size)]


# -- scenarios ---------------------------------------------------------------------------------

CATEGORIES = ("dst_offsets", "counter_rollover", "duplicates_reordering", "unit_mixups", "clock_skew", "gaps")


def build_site(rng, name, category):
    """Batches (in send order) and graded hours of one site stressing ``category``."""
    if category == "dst_offsets":
        year = rng.choice((2025, 2026))
        month = rng.choice((3, 10))
        switch = int(last_sunday(year, month).replace(hour=1).timestamp())
        start = switch - 6 * HOUR
        hours = 12
    else:
        start = epoch(2026, rng.choice((5, 6, 7)), rng.randint(1, 27), 4)
        hours = 12
    register0 = rng.uniform(WRAP - 1500, WRAP - 300) if category == "counter_rollover" else None
    site = Site(rng, name, start, hours, register0=register0)
    if category == "counter_rollover":
        for m in site.meters:
            site.load_kw[m] = rng.uniform(900, 1400)
    drops, outages = [], []
    if category == "gaps":
        a = start + rng.randint(2, 4) * HOUR + rng.choice((0, 900, 1800))
        drops.append((a, a + rng.randint(2, 5) * 900 + 900))
        b = start + rng.randint(5, 8) * HOUR + rng.randint(0, 3000)
        outages.append((b, b + rng.randint(700, 2400)))
        c = start + rng.randint(8, 10) * HOUR + rng.randint(0, 3000)
        outages.append((c, c + rng.randint(200, 500)))  # short gap: still integrated
    meter = site.meter_rows(drops)
    inverter = site.inverter_rows(outages)
    weather = site.weather_rows()
    units = ("W", "kW", "MW") if category == "unit_mixups" else ("kW",)
    temps = ("C", "F", "K") if category == "unit_mixups" else ("C",)
    batches = []
    for part in chunks(meter, 24):
        batches.append(("meter", render_meter(part, rng, style_mix=category == "dst_offsets")))
    for inv in site.inverters:
        offset = 0.0
        if category == "clock_skew":
            offset = float(rng.choice((-1, 1)) * rng.randint(600, 1500))
        rows = [r for r in inverter if r[0] == inv]
        for part in chunks(rows, 60):
            batches.append(("inverter", render_inverter(part, site.gateway[inv], offset, rng, units)))
    for part in chunks(weather, 12):
        batches.append(("weather", render_weather(part, rng, temps)))
    if category == "duplicates_reordering":
        batches = reorder(rng, batches)
    else:
        rng.shuffle(batches)  # feeds interleave; each device's own batches stay mostly in order
        batches.sort(key=lambda b: first_time_key(b))
    if category == "counter_rollover":
        graded = rollover_hours(meter)
        if len(graded) < 2:
            graded = sorted(set(graded + [start + HOUR * rng.randint(1, hours - 2)]))
    elif category == "gaps":
        spans = drops + outages
        graded = [h for h in range(start, start + hours * HOUR, HOUR) if any(a < h + HOUR and h < b for a, b in spans)]
    elif category == "dst_offsets":
        graded = [start + HOUR * k for k in range(3, 10)]
    else:
        graded = sorted(rng.sample([start + HOUR * k for k in range(1, hours - 1)], 6))
    return batches, graded


def first_time_key(batch):
    feed, text = batch
    return (feed, text.split("\n", 2)[1] if "\n" in text else text)


def reorder(rng, batches):
    """Late and duplicate delivery: whole batches re-sent, lines duplicated and shuffled."""
    out = []
    for feed, text in batches:
        lines = text.rstrip("\n").split("\n")
        head = lines[:1] if feed in ("meter", "inverter") else []
        body = lines[1:] if head else lines
        extra = [line for line in body if rng.random() < 0.15]
        body = body + extra
        rng.shuffle(body)
        out.append((feed, "\n".join(head + body) + "\n"))
    rng.shuffle(out)
    out += [out[i] for i in rng.sample(range(len(out)), max(1, len(out) // 5))]
    return out


def rollover_hours(rows):
    hours = set()
    last = {}
    for m, t, reg in sorted(rows, key=lambda r: (r[0], r[1])):
        if m in last and reg < last[m]:
            hours.add((t - 1) // HOUR * HOUR)
        last[m] = reg
    return sorted(hours)


def scenario(seed):
    """The hidden scenario of ``seed``: per category two sites; batches split in two halves.

    Returns ``{"first": [...], "second": [...], "cases": [(category, site, hour)], "sites": {...}}``.
    The service is killed and restarted between the halves.
    """
    rng = random.Random(f"grid-telemetry-ops:{seed}")
    first, second, cases = [], [], []
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    used = set()
    for category in CATEGORIES:
        for _ in range(2):
            while True:
                name = "".join(rng.choice(letters) for _ in range(4))
                if name not in used:
                    used.add(name)
                    break
            batches, graded = build_site(rng, name, category)
            for batch in batches:  # every site has data on both sides of the restart
                (first if rng.random() < 0.5 else second).append(batch)
            cases += [(category, name, h) for h in graded]
    mix = random.Random(rng.random())
    mix.shuffle(first)
    mix.shuffle(second)
    return {"first": first, "second": second, "cases": cases}


def live_probe(seed):
    """A small batch set for the live service: one site with every condition at once."""
    rng = random.Random(f"grid-telemetry-ops-live:{seed}")
    name = "LV" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(3))
    start = epoch(2026, 10, 25, 0) - 2 * HOUR  # the October switch
    site = Site(rng, name, start, 6, register0=rng.uniform(WRAP - 2500, WRAP - 1500))
    for m in site.meters:
        site.load_kw[m] = 1500.0
    meter = site.meter_rows([(start + 2 * HOUR + 900, start + 3 * HOUR + 900)])
    inverter = site.inverter_rows([(start + 4 * HOUR, start + 4 * HOUR + 1500)])
    batches = [("meter", render_meter(p, rng, style_mix=True)) for p in chunks(meter, 20)]
    for inv in site.inverters:
        rows = [r for r in inverter if r[0] == inv]
        batches += [
            ("inverter", render_inverter(p, site.gateway[inv], 420.0, rng, ("W", "kW", "MW")))
            for p in chunks(rows, 50)
        ]
    batches += [("weather", render_weather(p, rng, ("C", "F", "K"))) for p in chunks(site.weather_rows(), 12)]
    batches = reorder(rng, batches)
    return batches, [(name, start + HOUR * k) for k in range(0, 6)]


# -- bundled data ------------------------------------------------------------------------------

HISTORY_SEED = 20260329
HISTORY_START = epoch(2026, 3, 28, 16)
HISTORY_HOURS = 30
SAMPLE_SEED = 7


def history():
    """The spool the live service replays at boot: four sites, 30 hours over the March switch."""
    rng = random.Random(HISTORY_SEED)
    batches = []
    start = HISTORY_START
    for name in ("NORTH", "SOUTH", "EAST", "WEST"):
        site = Site(rng, name, start, HISTORY_HOURS, register0=rng.uniform(WRAP - 9000, WRAP - 6000), pv_step=(80, 160))
        drops = [(start + 14 * HOUR, start + 16 * HOUR)] if name == "EAST" else []
        outages = [(start + 17 * HOUR, start + 18 * HOUR)] if name == "WEST" else []
        meter = site.meter_rows(drops)
        batches += [("meter", render_meter(p, rng, style_mix=True)) for p in chunks(meter, 48)]
        for inv in site.inverters:
            rows = [r for r in site.inverter_rows(outages) if r[0] == inv]
            offset = 0.0 if name != "SOUTH" else 300.0
            batches += [
                ("inverter", render_inverter(p, site.gateway[inv], offset, rng, ("W", "kW", "MW")))
                for p in chunks(rows, 120)
            ]
        batches += [("weather", render_weather(p, rng, ("C", "F"))) for p in chunks(site.weather_rows(), 36)]
    return reorder(rng, batches)


def history_hours():
    return [(n, HISTORY_START + HOUR * k) for n in ("NORTH", "SOUTH", "EAST", "WEST") for k in range(HISTORY_HOURS)]


def sample():
    """The public sample: one clean site-day (winter offsets, kW and W, Celsius, in order)."""
    rng = random.Random(SAMPLE_SEED)
    start = epoch(2026, 2, 10, 0)
    site = Site(rng, "DEMO", start, 24)
    batches = [("meter", render_meter(p, rng)) for p in chunks(site.meter_rows(), 32)]
    for inv in site.inverters:
        rows = [r for r in site.inverter_rows() if r[0] == inv]
        batches += [
            ("inverter", render_inverter(p, site.gateway[inv], 0.0, rng, ("W", "kW")))
            for p in chunks(rows, 100)
        ]
    batches += [("weather", render_weather(p, rng)) for p in chunks(site.weather_rows(), 24)]
    return batches, [("DEMO", start + HOUR * k) for k in range(24)]


def write_batches(batches, directory):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for i, (feed, text) in enumerate(batches):
        (directory / f"{i:05d}-{feed}.txt").write_text(text)


def read_batches(directory):
    out = []
    for path in sorted(Path(directory).glob("*.txt")):
        feed = path.stem.split("-", 1)[1]
        out.append((feed, path.read_text()))
    return out


if __name__ == "__main__":
    what, target = sys.argv[1], sys.argv[2]
    if what == "history":
        write_batches(history(), target)
    elif what == "sample":
        import reference

        batches, hours = sample()
        write_batches(batches, Path(target) / "batches")
        model = reference.Model(batches)
        expected = [model.balance(site, h) for site, h in hours]
        (Path(target) / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
