"""Hidden checks for dlg-decoder. Writes /logs/verifier/scorecard.json.

The agent's /app/dlg2csv.py runs through ``run_untrusted`` (as nobody, with
/tests and /logs/verifier locked and no verifier environment): hidden files
live in a root-owned input directory, each run writes into its own scratch
directory."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
WEIGHTS = {"v2_mixed_blocks": 2, "big_endian": 3, "corrupt_blocks": 3, "unknown_blocks": 2,
           "out_of_order_gaps": 2, "nested_zlib": 2, "large_file": 2}


def convert(data, workdir, tag, timeout=30):
    src, out = workdir / f"{tag}.dlg", Path(scratch_dir()) / f"{tag}.csv"
    src.write_bytes(data)
    proc = run_untrusted([sys.executable, str(APP / "dlg2csv.py"), str(src), "-o", str(out)],
                         timeout=timeout, cwd=str(APP))
    return read_output(out) if proc.ok else None


def parse(text):
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None, {}
    rows = {}
    for line in lines[1:]:
        cells = line.split(",")
        rows.setdefault(cells[0].strip(), cells[1:])
    if len(rows) != len(lines) - 1:
        rows["duplicate timestamps"] = []
    return lines[0].strip(), rows


def row_ok(got, want):
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        decimals = len(w.split(".")[1]) if "." in w else 0
        try:
            if abs(float(g) - float(w)) > 0.51 * 10 ** -decimals + 1e-9:
                return False
        except ValueError:
            return False
    return True


def compare(text, expected):
    """(exact, fraction): exact = same header, same timestamps, all values within
    half a unit of the last printed decimal; fraction = matching rows / max(want, got)."""
    if text is None:
        return False, 0.0
    want_header, want = parse(expected)
    got_header, got = parse(text)
    if got_header != want_header:
        return False, 0.0
    good = sum(1 for t, cells in want.items() if t in got and row_ok(got[t], cells))
    fraction = good / max(len(want), len(got))
    try:
        times = [int(t) for t in got]
    except ValueError:
        times = []
    in_order = times == sorted(times) and len(set(times)) == len(times)
    return fraction == 1.0 and len(got) == len(want) and in_order, fraction


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    workdir = Path(input_dir())
    public = {name: compare(convert(data, workdir, name), csv)[0]
              for name, (data, csv) in gen.public_samples().items()}
    card.check("v1_sample", public["v1_basic"], weight=0.5, visibility="public")
    card.check("v2_samples", public["v2_delta"] and public["v2_packed"], weight=1, visibility="public")
    fractions, v1_exact = [], 0.0
    for name, files in gen.hidden_files(seed).items():
        results = [compare(convert(data, workdir, f"{name}{i}"), csv) for i, (data, csv) in enumerate(files)]
        exact = sum(ok for ok, _ in results)
        if name not in WEIGHTS:  # v1 files: the starter decodes them; a regression gate only
            v1_exact = exact / len(results)
            continue
        fractions.extend(fraction for _, fraction in results)
        card.add(name, exact / len(results), weight=WEIGHTS[name],
                 message=f"seed {seed}: {exact}/{len(results)} files exact")
    card.add("row_accuracy", sum(fractions) / len(fractions) * v1_exact, weight=3,
             message=f"seed {seed}: mean fraction of correct rows per hidden v2/variant file, "
                     f"x the fraction of hidden v1 files still exact ({v1_exact:.2f})")
    card.write("/logs/verifier/scorecard.json")


if __name__ == "__main__":
    main()
