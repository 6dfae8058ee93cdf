"""Interpret the recorder's key presses: the start mark and the unit entries."""

import numpy as np

from . import dtmf
from .wav import read_wav


def clock_seconds(text):
    text = text.strip().replace("T", " ").split()[-1]
    h, m, s = text.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def read_keylog(path):
    rate, channels, info = read_wav(path)
    x = channels[0]
    return parse_presses(dtmf.detect(x - np.mean(x), rate)), clock_seconds(info["ICRD"])


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
            units.append((int(digits), onset))
            digits = ""
    return star, units
