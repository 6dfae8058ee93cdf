"""Put the recorder and the probe on the form's clock."""

import numpy as np

from . import config
from .clock import difference


class ProbeTimeline:
    """The probe's pulses split into the calibration pulse and the unit pulses."""

    def __init__(self, pulses):
        self.edges = np.array([p for p, _ in pulses], dtype=float)
        self.heights = np.array([h for _, h in pulses], dtype=float)
        tall = np.nonzero(self.heights >= config.CALIBRATION)[0]
        self.calibration = float(self.edges[tall[0]]) if len(tall) else None
        self.unit_mask = self.heights < config.CALIBRATION

    @property
    def unit_count(self):
        """Unit pulses on the trace (the calibration pulse not counted)."""
        return int(self.unit_mask.sum()) if self.calibration is not None else 0

    def unit_times(self):
        """Unit pulse edges in seconds after the calibration pulse (empty without one)."""
        if self.calibration is None:
            return []
        return [float(e - self.calibration) for e in self.edges[self.unit_mask]]


def audio_offset(start, keylog):
    """Recorder clock minus reference clock (seconds), or None."""
    if start is None or keylog is None or keylog.star is None or keylog.icrd is None:
        return None
    return round(difference(keylog.recorder_clock(keylog.star), start), config.TIME_DECIMALS)


def sensor_offset(start, timeline):
    """Probe clock minus reference clock (seconds), or None."""
    if start is None or timeline is None or timeline.calibration is None:
        return None
    return round(difference(timeline.calibration, start), 3)
