"""Hidden checks for transition-care-repro. Writes /logs/verifier/scorecard.json.

The agent's pipeline (/app/run_pipeline.py) runs through ``run_untrusted`` on 40 raw datasets
regenerated from the episode seed (32 of the study's usual mix, 8 dense in edge cases), each in
a root-owned input directory, and its results.json is compared with the independent reference
(refimpl.py). The discrepancy report is graded against the errata planted in the bundled paper."""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bundle  # noqa: E402
import generate  # noqa: E402
import refimpl  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SCORECARD = os.environ.get("LHTB_SCORECARD", "/logs/verifier/scorecard.json")
MAIN_CASES = 32
EDGE_CASES = 8
REL_TOL, REL_ZERO = 0.001, 0.01


def run_pipeline(raw, name):
    out = Path(scratch_dir())
    proc = run_untrusted([sys.executable, str(APP / "run_pipeline.py"), "--raw", str(raw), "--out", str(out)],
                         timeout=60, cwd=str(APP))
    text = read_output(out / "results.json") if proc.ok else None
    try:
        doc = json.loads(text) if text else None
    except ValueError:
        doc = None
    return doc if isinstance(doc, dict) else None


def cases(seed):
    """[(edge-dense?, raw dir, reference results)] of the hidden datasets; sizes and effects vary with the seed."""
    base = Path(input_dir())
    out = []
    for i in range(MAIN_CASES + EDGE_CASES):
        case_seed = seed * 1000 + i
        edge = i >= MAIN_CASES
        options = {"patients": 500 + (case_seed * 37) % 400, "edge_rate": 0.35 if edge else 0.05}
        if i % 8 == 3:
            options["program_effect"] = 0.0
        raw = base / f"case{i:02d}"
        for attempt in range(5):
            generate.write(case_seed + attempt * 100_003, raw, **options)
            try:  # a degenerate draw (no events in a subgroup: a singular model) is redrawn
                want = json.loads(json.dumps(refimpl.analyse(raw)))
                break
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
        else:
            raise RuntimeError(f"case {i}: no usable dataset in 5 draws")
        out.append((edge, raw, want))
    return out


def rel(got, want):
    try:
        got = float(got)
    except (TypeError, ValueError):
        return float("inf")
    if got != got:
        return float("inf")
    return abs(got - want) / abs(want) if want else abs(got - want)


def linear(err):
    if err <= REL_TOL:
        return 1.0
    return 0.0 if err >= REL_ZERO else (REL_ZERO - err) / (REL_ZERO - REL_TOL)


def get(doc, *path):
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def shaped_like(got, want):
    """Every section of ``want`` is a mapping with the same keys in ``got`` (anything else scores 0)."""
    for section, body in want.items():
        mine = got.get(section)
        if not isinstance(mine, dict) or set(mine) != set(body):
            return False
        for key, value in body.items():
            if isinstance(value, dict) and not isinstance(mine[key], dict):
                return False
            if section == "figure1" and any(not isinstance(mine[key].get(arm), dict) for arm in value):
                return False
    return True


def flow_exact(got, want):
    return all(get(got, "flow", k) == v and type(get(got, "flow", k)) is int for k, v in want["flow"].items())


def or_error(got, want, section, names):
    errs = [rel(get(got, section, name, col), want[section][name][col])
            for name in names for col in ("or", "ci_low", "ci_high")]
    return max(errs)


def figure_exact(got, want):
    for group, arms in want["figure1"].items():
        for arm, cell in arms.items():
            mine = get(got, "figure1", group, arm)
            if not isinstance(mine, dict) or mine.get("n") != cell["n"] or mine.get("readmitted") != cell["readmitted"]:
                return False
            if cell["rate"] is None:
                if mine.get("rate") is not None:
                    return False
            elif rel(mine.get("rate"), cell["rate"]) > 1e-6:
                return False
    return True


def robustness_score(got, want):
    if any(get(got, "robustness", n, "n") != row["n"] for n, row in want["robustness"].items()):
        return 0.0
    return linear(or_error(got, want, "robustness", list(want["robustness"])))


def report_score(want_items):
    path = APP / "results" / "discrepancies.json"
    try:
        doc = json.loads(path.read_text())
        items = {str(e["item"]) for e in doc["discrepancies"] if str(e.get("cause", "")).strip()}
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0, "results/discrepancies.json missing or malformed"
    hits = len(items & want_items)
    if not hits:
        return 0.0, f"0 of {len(want_items)} errata found, {len(items)} items listed"
    precision, recall = hits / len(items), hits / len(want_items)
    return 2 * precision * recall / (precision + recall), f"{hits}/{len(want_items)} errata, {len(items)} listed"


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    bundled = Path(input_dir()) / "bundled"
    bundle.write_data(bundled)
    want_bundled = refimpl.analyse(bundled)
    got_bundled = run_pipeline(bundled, "bundled")
    shaped = got_bundled is not None and all(
        list(get(got_bundled, s) or {}) == list(want_bundled[s]) for s in want_bundled)
    card.check("pipeline_contract", shaped, weight=1, visibility="public")
    saved = APP / "results" / "results.json"
    try:
        deliverable = got_bundled is not None and json.loads(saved.read_text()) == got_bundled
    except (OSError, ValueError):
        deliverable = False
    card.check("deliverables", deliverable, weight=1, visibility="public",
               message=None if deliverable else "results/results.json missing or not the pipeline's output")

    main_scores = {k: [] for k in ("flow", "exposure", "covariates", "robustness", "figure")}
    edge_scores = []
    for edge, raw, want in cases(seed):
        got = run_pipeline(raw, raw.name)
        if got is not None and not shaped_like(got, want):
            got = None
        if got is None:
            (edge_scores.append(0.0) if edge else [v.append(0.0) for v in main_scores.values()])
            continue
        if edge:
            edge_scores.append(flow_exact(got, want) * figure_exact(got, want)
                               * linear(or_error(got, want, "table2", ["program"]))
                               * robustness_score(got, want))
            continue
        main_scores["flow"].append(float(flow_exact(got, want)))
        main_scores["exposure"].append(linear(or_error(got, want, "table2", ["program"])))
        main_scores["covariates"].append(linear(or_error(got, want, "table2", refimpl.TERMS[1:])))
        main_scores["robustness"].append(robustness_score(got, want))
        main_scores["figure"].append(float(figure_exact(got, want)))

    def mean(values):
        return sum(values) / len(values)

    note = f"seed {seed}: {MAIN_CASES} datasets"
    card.add("flow_counts", mean(main_scores["flow"]), weight=3, message=note)
    card.add("exposure_effect", mean(main_scores["exposure"]), weight=3, message=note)
    card.add("covariate_effects", mean(main_scores["covariates"]), weight=2, message=note)
    card.add("robustness_checks", mean(main_scores["robustness"]), weight=2, message=note)
    card.add("figure_data", mean(main_scores["figure"]), weight=2, message=note)
    card.add("edge_cases", mean(edge_scores), weight=2, message=f"seed {seed}: {EDGE_CASES} edge-dense datasets")
    score, message = report_score(bundle.errata())
    card.add("discrepancy_report", score, weight=2, message=message)
    card.write(SCORECARD)


if __name__ == "__main__":
    main()
