"""Build one case's report entry from its three files; a stage that fails leaves its fields empty."""

import sys
from pathlib import Path

from .crosscheck import CALIBRATION, reconcile
from .form import FormReader
from .keylog import clock_seconds, read_keylog
from .pulses import find_pulses
from .sensor import read_trace

_READER = []


def _stage(name, fn, default):
    try:
        return fn()
    except Exception as exc:  # one unreadable file must not sink the rest of the case
        print(f"  {name}: {exc!r}", file=sys.stderr)
        return default


def case_report(case_dir):
    case_dir = Path(case_dir)
    if not _READER:
        _READER.append(FormReader())
    fields = _stage("form", lambda: _READER[0].read(case_dir / "form.pgm"), {})
    start_text = fields.get("START", "")
    start = _stage("start", lambda: clock_seconds(start_text), None)
    form_units = _stage("units", lambda: int(fields.get("UNITS", "")), None)
    (star, units), icrd = _stage("keylog", lambda: read_keylog(case_dir / "notes.wav"), ((None, []), None))
    pulses = _stage("sensor", lambda: find_pulses(read_trace(case_dir / "sensor.csv")), [])
    cal = [p for p, h in pulses if h >= CALIBRATION]
    cal_edge = cal[0] if cal else None
    unit_pulses = [p - cal_edge for p, h in pulses if h < CALIBRATION] if cal else []
    rel_units = [(u, t - star) for u, t in units] if star is not None else []
    events, confirmed, flags = reconcile(form_units, rel_units, unit_pulses)
    known = start is not None
    return {
        "case_id": fields.get("CASE", ""), "site": fields.get("SITE", ""), "start": start_text,
        "form_units": form_units,
        "audio_offset_s": round(icrd + star - start, 2) if known and star is not None and icrd is not None else None,
        "sensor_offset_s": round(cal_edge - start, 3) if known and cal_edge is not None else None,
        "audio_units": [u for u, _ in units], "sensor_pulses": len(unit_pulses),
        "events": events, "confirmed_units": confirmed, "flags": flags,
    }
