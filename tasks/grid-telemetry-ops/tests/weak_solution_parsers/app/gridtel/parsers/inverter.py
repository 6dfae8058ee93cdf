"""PV inverter gateways: JSON-lines batches.

The first line is the gateway header, the others are samples::

    {"gateway": "gw-north-0", "clock_offset_s": 37.0}
    {"inv": "NORTH.PV1", "t": 1774717237.4, "p": 512.3, "unit": "kW"}

``clock_offset_s`` is how far the gateway's devices' clocks run ahead of true
time (the gateway measures it against NTP on every upload).
"""

import json
import math

from gridtel.model import PowerSample
from gridtel.units import UnitError, power_kw


def _header(line, feed_error):
    try:
        header = json.loads(line)
    except ValueError as exc:
        raise feed_error(f"inverter batch header is not JSON: {exc}") from None
    if not isinstance(header, dict) or "gateway" not in header:
        raise feed_error("inverter batch must start with a gateway header")
    offset = header.get("clock_offset_s", 0.0)
    if isinstance(offset, bool) or not isinstance(offset, (int, float)) or not math.isfinite(offset):
        raise feed_error(f"clock_offset_s must be a number, got {offset!r}")
    return str(header["gateway"]), float(offset)


def parse(text, result, feed_error):
    """Append a :class:`PowerSample` per sample line to ``result``."""
    lines = text.splitlines()
    if not lines:
        raise feed_error("empty inverter batch")
    _gateway, offset = _header(lines[0], feed_error)
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            inverter_id = str(row["inv"])
            device_t = float(row["t"])
            kw = power_kw(row["p"], row.get("unit", "kW"))
        except (ValueError, KeyError, TypeError, UnitError) as exc:
            result.reject(number, line, exc)
            continue
        if "." not in inverter_id:
            result.reject(number, line, "inverter id must be <SITE>.<inverter>")
            continue
        result.records.append(PowerSample(inverter_id, device_t - offset, device_t, kw))
