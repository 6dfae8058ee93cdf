"""Time stamps: parsing what the feeds send, formatting what the API returns."""

import re
from datetime import datetime, timezone

from gridtel.model import HOUR_S

_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


class TimestampError(ValueError):
    """A time stamp the service cannot read."""


def parse_timestamp(text):
    """Epoch seconds of an ISO 8601 time stamp as the gateways send it.

    Gateways send ``YYYY-MM-DDTHH:MM:SS`` followed by a zone designator.
    """
    text = text.strip()
    if not _ISO.match(text):
        raise TimestampError(f"not an ISO 8601 time stamp: {text!r}")
    try:
        when = datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError as exc:
        raise TimestampError(f"bad time stamp {text!r}: {exc}") from exc
    return when.replace(tzinfo=timezone.utc).timestamp()


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
