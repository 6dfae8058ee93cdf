"""The report's entry format (docs/PROCEDURE.md) and its serialisation."""

import json

REPORT_KEYS = ("case_id", "site", "start", "form_units", "audio_offset_s", "sensor_offset_s", "audio_units",
               "sensor_pulses", "events", "confirmed_units", "flags")


def empty_entry():
    """The entry of a case nothing could be read from."""
    return {"case_id": "", "site": "", "start": "", "form_units": None, "audio_offset_s": None,
            "sensor_offset_s": None, "audio_units": [], "sensor_pulses": 0, "events": [],
            "confirmed_units": 0, "flags": []}


def entry_problems(entry):
    """Ways an entry breaks the format (empty when it is well-formed)."""
    out = [f"missing {k}" for k in REPORT_KEYS if k not in entry]
    for key in ("audio_units", "events", "flags"):
        if key in entry and not isinstance(entry[key], list):
            out.append(f"{key} is not a list")
    for ev in entry.get("events") or []:
        if not isinstance(ev, dict) or set(ev) != {"unit", "t", "sensor"}:
            out.append(f"malformed event {ev!r}")
            break
    if entry.get("flags") != sorted(entry.get("flags") or []):
        out.append("flags are not sorted")
    return out


def dump_json(data, path):
    """Write ``data`` as indented JSON; the file is replaced only once the text is complete."""
    text = json.dumps(data, indent=1)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def dump_report(cases, path):
    """Write the report ``{"cases": {name: entry}}``."""
    dump_json({"cases": cases}, path)
