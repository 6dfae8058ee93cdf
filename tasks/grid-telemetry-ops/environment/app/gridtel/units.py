"""Unit handling for the feeds: power to kW, energy to kWh, temperature to Celsius."""

import math

from gridtel import log

_log = log.get("units")

# factor that turns a value in the unit into kW
POWER_TO_KW = {
    "W": 0.001,
    "kW": 1.0,
}

ENERGY_TO_KWH = {
    "Wh": 0.001,
    "kWh": 1.0,
    "MWh": 1000.0,
}

TEMPERATURE_UNITS = ("C", "F")


class UnitError(ValueError):
    """A value whose unit the service does not know."""


def power_kw(value, unit):
    """``value`` in ``unit`` as kW."""
    value = float(value)
    if not math.isfinite(value):
        raise UnitError(f"power is not a finite number: {value!r}")
    factor = POWER_TO_KW.get(unit)
    if factor is None:
        _log.warning("unknown power unit %r, assuming kW", unit)
        factor = 1.0
    return value * factor


def energy_kwh(value, unit):
    """``value`` in ``unit`` as kWh."""
    factor = ENERGY_TO_KWH.get(unit)
    if factor is None:
        raise UnitError(f"unknown energy unit {unit!r}")
    return float(value) * factor


def split_temperature(text):
    """``"41.2F"`` -> ``(41.2, "F")``; a bare number is Celsius."""
    text = text.strip()
    if text and text[-1].isalpha():
        return float(text[:-1]), text[-1]
    return float(text), "C"


def temperature_c(value, unit):
    """A temperature in Celsius."""
    if unit == "C":
        return float(value)
    if unit == "F":
        return float(value) - 32.0 * 5.0 / 9.0
    _log.warning("unknown temperature unit %r, assuming Celsius", unit)
    return float(value)
