"""Hidden checks for climate-extremes. Writes /logs/verifier/scorecard.json.

The agent's /app/heatwave.py runs through ``run_untrusted`` (as nobody, with
/tests and /logs/verifier locked and no verifier environment): hidden inputs
live in a root-owned input directory, each run writes into its own scratch
directory."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SAMPLE_SEED = 0
HIDDEN_STATIONS = 20  # stations per hidden input: each hidden subtask scores 20 cases
SUBTASK_WEIGHTS = {
    "missing_values": 2,
    "valid_time_column": 2,
    "gzip_base64": 2,
    "nested_manifest": 2,
    "unsorted_multi_station": 2,
}


def run_tool(input_path):
    out = Path(scratch_dir()) / "out.json"
    proc = run_untrusted([sys.executable, str(APP / "heatwave.py"), str(input_path), "-o", str(out)],
                         timeout=120, cwd=str(APP))
    text = read_output(out) if proc.ok else None
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def station_matches(got, want):
    if not isinstance(got, dict):
        return False
    threshold = got.get("threshold")
    if not isinstance(threshold, (int, float)) or abs(threshold - want["threshold"]) > 0.011:
        return False
    return got.get("events") == want["events"]


def fraction_correct(report, expected):
    stations = (report or {}).get("stations") or {}
    wanted = expected["stations"]
    return sum(station_matches(stations.get(n), w) for n, w in wanted.items()) / len(wanted)


def write(workdir, name, text):
    path = workdir / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def cases(seed, workdir):
    """Yield (subtask, input path, expected report) for each hidden input kind."""
    data = gen.dataset(seed + 1, stations=HIDDEN_STATIONS, missing_rate=0.12)
    yield "missing_values", write(workdir, "missing.csv", gen.to_csv(data)), data
    data = gen.dataset(seed + 2, stations=HIDDEN_STATIONS)
    yield "valid_time_column", write(workdir, "era.csv", gen.to_csv(data, "valid_time")), data
    data = gen.dataset(seed + 3, stations=HIDDEN_STATIONS, missing_rate=0.05)
    yield "gzip_base64", write(workdir, "packed.csv.gz.b64", gen.to_b64(gen.to_csv(data))), data
    data = gen.dataset(seed + 4, stations=HIDDEN_STATIONS, missing_rate=0.05)
    first, second, third = gen.split(data, 3)
    write(workdir, "m/a.csv", gen.to_csv(first, shuffle_seed=seed))
    write(workdir, "m/deeper/b.csv.b64", gen.to_b64(gen.to_csv(second, "valid_time")))
    write(workdir, "m/deeper/c.csv", gen.to_csv(third))
    write(workdir, "m/deeper/inner.json", gen.manifest(["b.csv.b64", "c.csv"]))
    yield "nested_manifest", write(workdir, "m/top.json", gen.manifest(["a.csv", "deeper/inner.json"])), data
    data = gen.dataset(seed + 5, stations=HIDDEN_STATIONS, days=240, missing_rate=0.03, gap_rate=0.04)
    yield "unsorted_multi_station", write(workdir, "many.csv", gen.to_csv(data, shuffle_seed=seed)), data


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    workdir = Path(input_dir())
    sample = gen.dataset(SAMPLE_SEED)
    report = run_tool(write(workdir, "sample.csv", gen.to_csv(sample)))
    shaped = isinstance(report, dict) and isinstance(report.get("stations"), dict)
    card.check("cli_contract", shaped, weight=1, visibility="public")
    card.check(
        "sample_matches",
        shaped and report == gen.expected_report(sample),
        weight=1,
        visibility="public",
    )
    threshold_scores = []
    for name, path, data in cases(seed, workdir):
        expected = gen.expected_report(data)
        report = run_tool(path)
        card.add(name, fraction_correct(report, expected), weight=SUBTASK_WEIGHTS[name])
        if name == "unsorted_multi_station":
            stations = (report or {}).get("stations") or {}
            for station, want in expected["stations"].items():
                got = (stations.get(station) or {}).get("threshold")
                error = abs(got - want["threshold"]) if isinstance(got, (int, float)) else 99.0
                threshold_scores.append(max(0.0, min(1.0, (1.0 - error) / 0.99)))
    card.add(
        "threshold_accuracy",
        sum(threshold_scores) / len(threshold_scores),
        weight=2,
        message=f"seed {seed}",
    )
    card.write("/logs/verifier/scorecard.json")


if __name__ == "__main__":
    main()
