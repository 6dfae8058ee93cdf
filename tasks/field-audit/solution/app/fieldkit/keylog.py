"""Interpret the recorder's key presses: the start mark and the unit entries."""

import numpy as np

from . import dtmf
from .clock import clock_seconds
from .wav import read_wav


class KeyLog:
    """What the recorder heard: the ``*`` mark, the units keyed and the recorder's clock."""

    def __init__(self, star, units, icrd, presses=()):
        self.star = star
        self.units = units
        self.icrd = icrd
        self.presses = list(presses)

    @property
    def numbers(self):
        return [u for u, _ in self.units]

    def relative_units(self):
        """Units with their times in seconds after the ``*`` mark."""
        if self.star is None:
            return []
        return [(u, t - self.star) for u, t in self.units]

    def recorder_clock(self, seconds):
        """The recorder's clock reading ``seconds`` after its first sample."""
        return None if self.icrd is None else self.icrd + seconds


def read_keylog(path):
    """The key log of a recording."""
    rate, channels, info = read_wav(path)
    presses = None
    for x in channels:
        found = dtmf.detect(x - np.mean(x), rate)
        if presses is None or len(found) > len(presses):
            presses = found
    star, units = parse_presses(presses)
    icrd = clock_seconds(info["ICRD"]) if "ICRD" in info else None
    return KeyLog(star, units, icrd, presses)


def parse_presses(presses):
    """Return (start mark onset, [(unit, onset of its first digit)])."""
    star, units, digits, first = None, [], "", None
    for onset, key in presses:
        if key == "*":
            star, digits = onset, ""
        elif key.isdigit():
            if not digits:
                first = onset
            digits += key
        elif key == "#" and digits:
            units.append((int(digits), first))
            digits = ""
    return star, units
