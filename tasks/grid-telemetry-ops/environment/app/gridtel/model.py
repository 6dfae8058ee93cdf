"""The records the parsers produce and the store keeps."""

from dataclasses import dataclass

HOUR_S = 3600


@dataclass(frozen=True)
class MeterReading:
    """A cumulative import-energy register read at ``t`` (epoch seconds, UTC)."""

    meter_id: str
    t: float
    register_kwh: float

    @property
    def site(self):
        return site_of(self.meter_id)


@dataclass(frozen=True)
class PowerSample:
    """An instantaneous AC power sample of an inverter.

    ``t`` is the corrected (true) time, ``device_t`` the time stamp exactly as the
    device sent it (the identity of the sample for de-duplication).
    """

    inverter_id: str
    t: float
    device_t: float
    kw: float

    @property
    def site(self):
        return site_of(self.inverter_id)


@dataclass(frozen=True)
class WeatherObs:
    """A weather station observation; temperatures are kept in degrees Celsius."""

    station: str
    t: float
    temp_c: float
    ghi_w_m2: float

    @property
    def site(self):
        return self.station


def site_of(device_id):
    """Devices are named ``<SITE>.<device>``; the site is everything before the first dot."""
    return device_id.split(".", 1)[0]


def hour_floor(t):
    """Start (epoch seconds) of the UTC hour containing ``t``."""
    return int(t // HOUR_S) * HOUR_S
