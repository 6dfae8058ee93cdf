"""Hidden checks for meter-reader. Writes /logs/verifier/scorecard.json.

The agent's /app/readmeter.py runs through ``run_untrusted`` (as nobody, with
/tests and /logs/verifier locked and no verifier environment): hidden images
live in root-owned input directories, each run writes into its own scratch
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
WEIGHTS = {"other_readings": 2, "binary_pgm": 2, "colour_ppm": 2, "inverted_polarity": 2,
           "noisy": 3, "rotated": 3, "cropped_bezel": 2, "combined": 3}



def read_all(files, workdir, timeout=120):
    """Run the tool once on every file; return {basename: reading} (empty on failure)."""
    out = Path(scratch_dir()) / "readings.json"
    paths = []
    for name, data in files:
        path = workdir / name
        path.write_bytes(data)
        paths.append(str(path))
    proc = run_untrusted([sys.executable, str(APP / "readmeter.py"), *paths, "-o", str(out)],
                         timeout=timeout, cwd=str(APP))
    text = read_output(out) if proc.ok else None
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    readings = data.get("readings") if isinstance(data, dict) else None
    return readings if isinstance(readings, dict) else {}


def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def char_score(got, want):
    if not isinstance(got, str):
        return 0.0
    got = got.strip()
    return max(0.0, 1.0 - edit_distance(got, want) / max(len(want), len(got), 1))


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    public_dir = Path(input_dir("lhtb-public-"))
    samples = gen.public_samples()
    got = read_all([(name, data) for name, data, _ in samples], public_dir)
    card.check("cli_contract", all(isinstance(got.get(name), str) for name, _, _ in samples),
               weight=1, visibility="public")
    card.check("samples_match", all(got.get(name) == want for name, _, want in samples),
               weight=1, visibility="public")
    hidden_dir = Path(input_dir("lhtb-hidden-"))
    images = gen.hidden_images(seed)
    got = read_all([(name, data) for items in images.values() for name, data, _ in items], hidden_dir)
    chars = []
    for subtask, items in images.items():
        right = sum(isinstance(got.get(name), str) and got[name].strip() == want for name, _, want in items)
        chars.extend(char_score(got.get(name), want) for name, _, want in items)
        card.add(subtask, right / len(items), weight=WEIGHTS[subtask],
                 message=f"seed {seed}: {right}/{len(items)} read exactly")
    card.add("char_accuracy", sum(chars) / len(chars), weight=2,
             message=f"seed {seed}: mean 1 - edit distance / length over {len(chars)} images")
    card.write("/logs/verifier/scorecard.json")


if __name__ == "__main__":
    main()
