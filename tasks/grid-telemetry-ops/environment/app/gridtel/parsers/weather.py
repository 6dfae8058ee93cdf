"""Weather stations: one observation per line as ``key=value`` pairs.

    station=NORTH ts=2026-03-28T17:00:00+01:00 temp=7.31C ghi=412
"""

from gridtel.model import WeatherObs
from gridtel.timeutil import TimestampError, parse_timestamp
from gridtel.units import split_temperature, temperature_c

REQUIRED = ("station", "ts", "temp")


def _fields(line):
    fields = {}
    for token in line.split():
        key, sep, value = token.partition("=")
        if not sep:
            raise ValueError(f"not key=value: {token!r}")
        fields[key] = value
    return fields


def parse(text, result, feed_error):
    """Append a :class:`WeatherObs` per line to ``result``."""
    del feed_error  # weather batches have no header
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            fields = _fields(line)
            missing = [k for k in REQUIRED if k not in fields]
            if missing:
                raise ValueError(f"missing {', '.join(missing)}")
            t = parse_timestamp(fields["ts"])
            value, unit = split_temperature(fields["temp"])
            temp = temperature_c(value, unit)
            ghi = float(fields.get("ghi", "nan"))
        except (TimestampError, ValueError) as exc:
            result.reject(number, line, exc)
            continue
        result.records.append(WeatherObs(fields["station"], t, temp, ghi))
