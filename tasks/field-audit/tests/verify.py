"""Hidden checks for field-audit. Writes /logs/verifier/scorecard.json.

The hidden archive (40 cases from the episode seed) is generated into a root-owned
input directory; the agent's /app/inspect_cases.py runs once over it as nobody,
writing into a fresh scratch directory. Each hidden subtask scores the fraction of
cases right, thresholded: 0 at 50 %, full at 95 %."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
KEYS = ("case_id", "site", "start", "form_units", "audio_offset_s", "sensor_offset_s", "audio_units",
        "sensor_pulses", "events", "confirmed_units", "flags")
ZERO_AT, FULL_AT = 0.5, 0.95


def run_tool(cases, timeout):
    """Write ``cases`` to an input directory, run the tool once, return its report's cases."""
    root = Path(input_dir("lhtb-archive-"))
    gen.write_archive(cases, root)
    out = Path(scratch_dir()) / "report.json"
    proc = run_untrusted([sys.executable, str(APP / "inspect_cases.py"), str(root), "-o", str(out)],
                         timeout=timeout, cwd=str(APP))
    text = read_output(out) if proc.ok else None
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        data = {}
    got = data.get("cases") if isinstance(data, dict) else None
    return got if isinstance(got, dict) else {}


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def case_checks(got, want):
    """Booleans per graded aspect of one case's report entry."""
    if not isinstance(got, dict):
        got = {}
    events, want_events = got.get("events"), want["events"]
    ev_ok = isinstance(events, list) and len(events) == len(want_events) and all(
        isinstance(a, dict) and a.get("unit") == b["unit"] and _num(a.get("t")) and abs(a["t"] - b["t"]) <= 0.2
        for a, b in zip(events, want_events))
    sensor_ok = ev_ok and all(a.get("sensor") is b["sensor"] for a, b in zip(events, want_events))
    ao, so = got.get("audio_offset_s"), got.get("sensor_offset_s")
    checks = {
        "form_fields": all(got.get(k) == want[k] for k in ("case_id", "site", "start", "form_units")),
        "audio_units": got.get("audio_units") == want["audio_units"],
        "audio_offset": _num(ao) and abs(ao - want["audio_offset_s"]) <= 0.2,
        "sensor_offset": _num(so) and abs(so - want["sensor_offset_s"]) <= 0.25,
        "sensor_pulses": got.get("sensor_pulses") == want["sensor_pulses"],
        "event_times": ev_ok,
        "cross_check": sensor_ok and got.get("confirmed_units") == want["confirmed_units"]
        and got.get("flags") == want["flags"],
    }
    checks["all"] = all(checks.values())
    return checks


def thresholded(frac):
    return min(1.0, max(0.0, (frac - ZERO_AT) / (FULL_AT - ZERO_AT)))


HIDDEN = {"form_fields": 4, "audio_units": 3, "audio_offset": 1, "sensor_offset": 1, "sensor_pulses": 2,
          "event_times": 2, "cross_check": 4}


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    samples = gen.public_cases()
    got = run_tool(samples, timeout=120)
    card.check("cli_contract", all(isinstance(got.get(n), dict) and all(k in got[n] for k in KEYS) for n in samples),
               weight=1, visibility="public")
    card.check("samples_match", all(case_checks(got.get(n), want)["all"] for n, (_, want) in samples.items()),
               weight=1, visibility="public")
    hidden = gen.hidden_cases(seed)
    got = run_tool(hidden, timeout=660)
    results = {name: case_checks(got.get(name), want) for name, (_, want, _lvl) in hidden.items()}
    for subtask, weight in HIDDEN.items():
        right = sum(r[subtask] for r in results.values())
        card.add(subtask, thresholded(right / len(results)), weight=weight,
                 message=f"seed {seed}: {right}/{len(results)} cases right")
    hard = [name for name, (_, _, lvl) in hidden.items() if lvl >= 2]
    right = sum(results[n]["all"] for n in hard)
    card.add("hard_cases", thresholded(right / len(hard)), weight=5,
             message=f"seed {seed}: {right}/{len(hard)} heavy cases entirely right")
    card.write("/logs/verifier/scorecard.json")


if __name__ == "__main__":
    main()
