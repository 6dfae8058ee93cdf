"""Reference model of the gridtel contract (docs/feeds.md, docs/api.md): batches in, balances out.

Deliberately a different shape from the service: it keeps everything in memory,
sorts once, and integrates with exact hour splits.
"""

import json
import re
from datetime import datetime, timezone

WRAP = 100000.0
HOUR = 3600
MAX_PV_GAP_S = 600.0
TO_KW = {"W": 0.001, "kW": 1.0, "MW": 1000.0}
STAMP = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(Z|([+-])(\d\d):?(\d\d))$")


def parse_time(text):
    m = STAMP.match(text.strip())
    if not m:
        raise ValueError(text)
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    t = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc).timestamp()
    if m.group(7) != "Z":
        sign = 1 if m.group(8) == "+" else -1
        t -= sign * (int(m.group(9)) * 3600 + int(m.group(10)) * 60)
    return t


def temp_c(text):
    value, unit = float(text[:-1]), text[-1]
    return {"C": value, "F": (value - 32.0) * 5.0 / 9.0, "K": value - 273.15}[unit]


def spread(t1, t2, energy, into):
    """Add ``energy`` spread uniformly over [t1, t2] to UTC hour bins."""
    if t2 <= t1:
        return
    h = int(t1 // HOUR) * HOUR
    while h < t2:
        a, b = max(t1, h), min(t2, h + HOUR)
        if b > a:
            into[h] = into.get(h, 0.0) + energy * (b - a) / (t2 - t1)
        h += HOUR


def trapezoid(t1, p1, t2, p2, into):
    """Integrate the line (t1,p1)-(t2,p2) in kW over hours; kWh."""
    h = int(t1 // HOUR) * HOUR
    while h < t2:
        a, b = max(t1, h), min(t2, h + HOUR)
        if b > a:
            pa = p1 + (p2 - p1) * (a - t1) / (t2 - t1)
            pb = p1 + (p2 - p1) * (b - t1) / (t2 - t1)
            into[h] = into.get(h, 0.0) + (pa + pb) / 2.0 * (b - a) / 3600.0
        h += HOUR


class Model:
    def __init__(self, batches):
        meters, inverters, weather = {}, {}, {}
        for feed, text in batches:
            lines = [line for line in text.splitlines() if line.strip()]
            if feed == "meter":
                for line in lines[1:]:
                    mid, stamp, reg = line.split(",")
                    meters.setdefault(mid, {})[parse_time(stamp)] = float(reg)
            elif feed == "inverter":
                offset = float(json.loads(lines[0]).get("clock_offset_s", 0.0))
                for line in lines[1:]:
                    row = json.loads(line)
                    kw = float(row["p"]) * TO_KW[row["unit"]]
                    inverters.setdefault(row["inv"], {})[float(row["t"])] = (float(row["t"]) - offset, kw)
            else:
                for line in lines:
                    fields = dict(tok.split("=", 1) for tok in line.split())
                    weather.setdefault(fields["station"], {})[parse_time(fields["ts"])] = temp_c(fields["temp"])
        self.meter_bins = {}
        for mid, readings in meters.items():
            bins = self.meter_bins.setdefault(mid.split(".")[0], {})
            points = sorted(readings.items())
            for (t1, r1), (t2, r2) in zip(points, points[1:]):
                spread(t1, t2, round((r2 - r1) % WRAP, 1), bins)
        self.pv_bins = {}
        for inv, samples in inverters.items():
            bins = self.pv_bins.setdefault(inv.split(".")[0], {})
            points = sorted(samples.values())
            for (t1, p1), (t2, p2) in zip(points, points[1:]):
                if t2 - t1 <= MAX_PV_GAP_S:
                    trapezoid(t1, p1, t2, p2, bins)
        self.weather = weather

    def balance(self, site, hour):
        imp = self.meter_bins.get(site, {}).get(hour, 0.0)
        pv = self.pv_bins.get(site, {}).get(hour, 0.0)
        temps = [v for t, v in self.weather.get(site, {}).items() if hour <= t < hour + HOUR]
        return {
            "site": site,
            "hour": datetime.fromtimestamp(hour, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "import_kwh": round(imp, 3),
            "pv_kwh": round(pv, 3),
            "load_kwh": round(imp + pv, 3),
            "temp_c": round(sum(temps) / len(temps), 2) if temps else None,
        }


def matches(got, want, tol=0.02):
    """The documented tolerance: energies within 0.02 kWh (+1e-5 relative), temperature 0.02 C."""
    if not isinstance(got, dict):
        return False
    for key in ("import_kwh", "pv_kwh", "load_kwh"):
        value = got.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if abs(value - want[key]) > tol + 1e-5 * abs(want[key]):
            return False
    t = got.get("temp_c")
    if want["temp_c"] is None:
        return t is None
    return isinstance(t, (int, float)) and not isinstance(t, bool) and abs(t - want["temp_c"]) <= tol
