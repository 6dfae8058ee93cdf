"""Build one case's report entry from its three files; a stage that fails leaves its fields empty."""

from pathlib import Path

from .align import ProbeTimeline, audio_offset, sensor_offset
from .crosscheck import reconcile
from .diagnostics import CaseLog
from .fields import problems, start_seconds, unit_count
from .form import FormReader
from .keylog import read_keylog
from .pulses import find_pulses
from .schema import empty_entry
from .sensor import read_trace

FORM, AUDIO, PROBE = "form.pgm", "notes.wav", "sensor.csv"
_READER = []


def form_reader():
    """One FormReader per process (loading the font is not free)."""
    if not _READER:
        _READER.append(FormReader())
    return _READER[0]


def case_report(case_dir, log=None):
    """The report entry of one case directory."""
    case_dir = Path(case_dir)
    log = log or CaseLog(case_dir.name)
    entry = empty_entry()
    for name in (FORM, AUDIO, PROBE):
        if not (case_dir / name).is_file():
            log.warn(f"{name} is missing")

    fields = log.stage("form", lambda: form_reader().read(case_dir / FORM), {})
    for text in problems(fields):
        log.warn(f"form: {text}")
    start = start_seconds(fields)
    entry.update(case_id=fields.get("CASE", ""), site=fields.get("SITE", ""), start=fields.get("START", ""),
                 form_units=unit_count(fields))

    keylog = log.stage("keylog", lambda: read_keylog(case_dir / AUDIO), None)
    trace = log.stage("trace", lambda: read_trace(case_dir / PROBE), None)
    pulses = log.stage("pulses", lambda: find_pulses(trace), []) if trace is not None else []
    timeline = ProbeTimeline(pulses)
    if pulses and timeline.calibration is None:
        log.warn("probe: no calibration pulse")

    units = keylog.relative_units() if keylog is not None else []
    if keylog is not None and keylog.star is None:
        log.warn("recorder: no start mark")
    events, confirmed, flags = reconcile(entry["form_units"], units, timeline.unit_times())
    entry.update(
        audio_offset_s=audio_offset(start, keylog),
        sensor_offset_s=sensor_offset(start, timeline),
        audio_units=keylog.numbers if keylog is not None else [],
        sensor_pulses=timeline.unit_count,
        events=events, confirmed_units=confirmed, flags=flags,
    )
    return entry
