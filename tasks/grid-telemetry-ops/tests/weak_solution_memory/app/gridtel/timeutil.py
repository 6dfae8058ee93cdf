"""Time stamps: parsing what the feeds send, formatting what the API returns."""

import re
from datetime import datetime, timezone

from gridtel.model import HOUR_S

_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(Z|[+-]\d\d:?\d\d)$")


class TimestampError(ValueError):
    """A time stamp the service cannot read."""


def parse_timestamp(text):
    """Epoch seconds of an ISO 8601 time stamp as the gateways send it.

    Gateways send ``YYYY-MM-DDTHH:MM:SS`` followed by a zone designator.
    """
    text = text.strip()
    match = _ISO.match(text)
    if not match:
        raise TimestampError(f"not an ISO 8601 time stamp with a zone designator: {text!r}")
    zone = match.group(1)
    try:
        when = datetime.strptime(text[: -len(zone)].split(".")[0], "%Y-%m-%dT%H:%M:%S")
    except ValueError as exc:
        raise TimestampError(f"bad time stamp {text!r}: {exc}") from exc
    t = when.replace(tzinfo=timezone.utc).timestamp()
    fraction = text[: -len(zone)].partition(".")[2]
    if fraction:
        t += float("0." + fraction)
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        t -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return t


def parse_hour(text):
    """The ``hour`` query parameter: a UTC hour start such as ``2026-03-29T01:00:00Z``."""
    t = parse_timestamp(text)
    if t % HOUR_S:
        raise TimestampError(f"hour must start on the hour: {text!r}")
    return int(t)


def format_hour(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_time(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
