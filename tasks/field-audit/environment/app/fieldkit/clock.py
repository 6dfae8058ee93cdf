"""Clock strings of the three devices: HH:MM:SS[.fff], optionally after a date."""

import re

_CLOCK = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2}(?:\.\d+)?)$")
DAY = 24 * 3600


class ClockError(ValueError):
    """A clock string that is not HH:MM:SS[.fff]."""


def clock_seconds(text):
    """Seconds since midnight of a clock string (a leading date is ignored)."""
    if not isinstance(text, str):
        raise ClockError(f"not a clock string: {text!r}")
    text = text.strip().replace("T", " ").split()[-1] if text.strip() else ""
    m = _CLOCK.match(text)
    if not m:
        raise ClockError(f"not a clock string: {text!r}")
    h, mi, s = int(m.group(1)), int(m.group(2)), float(m.group(3))
    if h > 23 or mi > 59 or s >= 60:
        raise ClockError(f"clock out of range: {text!r}")
    return h * 3600 + mi * 60 + s


def format_clock(seconds, decimals=0):
    """HH:MM:SS (with ``decimals`` fraction digits) for seconds since midnight."""
    seconds = seconds % DAY
    if decimals:
        whole = int(seconds)
        frac = f"{seconds - whole:.{decimals}f}"[1:]
        if frac.startswith(".") and float(frac) >= 1:
            whole, frac = whole + 1, "." + "0" * decimals
    else:
        whole, frac = int(round(seconds)), ""
    return f"{whole // 3600 % 24:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}{frac}"


def is_clock(text):
    """True when ``text`` parses as a clock string."""
    try:
        clock_seconds(text)
    except ClockError:
        return False
    return True


def difference(later, earlier):
    """``later - earlier`` in seconds for two readings of clocks that may cross midnight."""
    d = later - earlier
    if d > DAY / 2:
        d -= DAY
    elif d < -DAY / 2:
        d += DAY
    return d
