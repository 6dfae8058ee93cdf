"""Hidden checks for heat-theta-scheme. Writes /logs/verifier/scorecard.json.

The agent's /app/run.py (and its heatsolve package) runs through
``run_untrusted`` (as nobody, with /tests and /logs/verifier locked and no
verifier environment): hidden cases live in a root-owned input directory, each
run writes into its own scratch directory."""

import json
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
KEYS = ("x", "u", "steps", "l2_error", "levels", "observed_order")


def run_solver(cfg, workdir, tag):
    src = workdir / f"{tag}.json"
    out = Path(scratch_dir()) / f"{tag}-out.json"
    src.write_text(json.dumps(cfg))
    proc = run_untrusted([sys.executable, str(APP / "run.py"), str(src), "-o", str(out)],
                         timeout=60, cwd=str(APP))
    text = read_output(out) if proc.ok else None
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def log_score(err, good, bad):
    """1 at err <= good, 0 at err >= bad, linear in log10(err) between."""
    if err is None or not math.isfinite(err):
        return 0.0
    if err <= good:
        return 1.0
    if err >= bad:
        return 0.0
    return (math.log10(bad) - math.log10(err)) / (math.log10(bad) - math.log10(good))


def number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def field_error(got, ref):
    u = (got or {}).get("u")
    if not isinstance(u, list) or len(u) != len(ref["u"]):
        return None
    values = [number(v) for v in u]
    if any(v is None for v in values):
        return None
    scale = max(max(abs(v) for v in ref["u"]), 1e-12)
    return max(abs(a - b) for a, b in zip(values, ref["u"])) / scale


def field_score(got, ref):
    return log_score(field_error(got, ref), 1e-8, 1e-4)


def l2_score(got, ref):
    value = number((got or {}).get("l2_error"))
    if value is None:
        return 0.0
    return log_score(abs(value - ref["l2_error"]) / ref["l2_error"], 1e-6, 1e-2)


def order_score(got, ref):
    value = number((got or {}).get("observed_order"))
    if value is None or not math.isfinite(value):
        return 0.0
    distance = abs(value - ref["observed_order"])
    return 1.0 if distance <= 0.005 else max(0.0, (0.25 - distance) / (0.25 - 0.005))


def mean(values):
    return sum(values) / len(values)


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    workdir = Path(input_dir())
    got = run_solver(gen.PUBLIC_CASE, workdir, "public")
    ref = gen.reference(gen.PUBLIC_CASE)
    card.check("public_case_runs", bool(got) and all(k in got for k in KEYS),
               weight=0.5, visibility="public")
    matches = (bool(got) and got.get("steps") == ref["steps"]
               and field_score(got, ref) == 1.0 and l2_score(got, ref) == 1.0
               and order_score(got, ref) == 1.0)
    card.check("public_case_matches", matches, weight=1, visibility="public")

    cases = gen.hidden_cases(seed)
    results = {}
    for name, configs in cases.items():
        results[name] = [(run_solver(cfg, workdir, f"{name}{i}"), gen.reference(cfg))
                         for i, cfg in enumerate(configs)]
    note = f"seed {seed}"
    card.add("dirichlet_cn_field", mean([field_score(g, r) for g, r in results["dirichlet_cn_field"]]),
             weight=2, message=note)
    card.add("step_count_rounding",
             mean([float(bool(g) and g.get("steps") == r["steps"] and field_score(g, r) == 1.0)
                   for g, r in results["step_count_rounding"]]),
             weight=2, message=note)
    card.add("theta_family", mean([field_score(g, r) for g, r in results["theta_family"]]),
             weight=3, message=note)
    card.add("neumann_field", mean([field_score(g, r) for g, r in results["neumann_field"]]),
             weight=3, message=note)
    every = [pair for pairs in results.values() for pair in pairs]
    card.add("l2_error_metric", mean([l2_score(g, r) for g, r in every]), weight=2, message=note)
    card.add("observed_order", mean([order_score(g, r) for g, r in results["observed_order"]]),
             weight=3, message=note)
    card.write("/logs/verifier/scorecard.json")


if __name__ == "__main__":
    main()
