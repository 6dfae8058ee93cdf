"""Tunables of every stage, in one place so a site can override them (FIELDKIT_* variables)."""

import os


def _env(name, default):
    raw = os.environ.get(f"FIELDKIT_{name}")
    if raw is None:
        return default
    try:
        return type(default)(raw)
    except ValueError:
        return default


# --- scanned forms
#: grey level below which a pixel is ink (0..255 scale)
INK_LEVEL = _env("INK_LEVEL", 128.0)
#: a row or column with more ink than this share of the page is a ruled line
RULE_SHARE = _env("RULE_SHARE", 0.45)
#: shortest ink band (pixels) that can hold a line of text
MIN_BAND = _env("MIN_BAND", 5)
#: a glyph cell is ink when more than this share of its block is ink
CELL_FILL = _env("CELL_FILL", 0.5)

# --- keypad recorder
#: analysis frame and hop (seconds)
DTMF_WINDOW = _env("DTMF_WINDOW", 0.03)
DTMF_STEP = _env("DTMF_STEP", 0.005)
#: share of the frame energy the two tones must carry
DTMF_TONE_SHARE = _env("DTMF_TONE_SHARE", 0.7)
#: how much stronger the winning row/column tone must be than the runner-up
DTMF_MARGIN = _env("DTMF_MARGIN", 8.0)
#: shortest key press (seconds)
DTMF_MIN_PRESS = _env("DTMF_MIN_PRESS", 0.04)

# --- probe
#: rise over the baseline (units) that starts a pulse
PULSE_RISE = _env("PULSE_RISE", 2.0)
#: a pulse at least this tall over the baseline is the calibration pulse
CALIBRATION = _env("CALIBRATION", 7.0)
#: readings at or below this are the probe's "no reading" marker
NO_READING = _env("NO_READING", -9999.0)

# --- reconciliation: a probe pulse confirms a unit when it starts within
#: this many seconds before / after the first key of the unit's number
MATCH_BEFORE = _env("MATCH_BEFORE", 0.5)
MATCH_AFTER = _env("MATCH_AFTER", 1.5)

# --- report
#: decimals kept for offsets and event times
TIME_DECIMALS = 2
