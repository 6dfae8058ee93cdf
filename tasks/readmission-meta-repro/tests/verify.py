"""Hidden checks for readmission-meta-repro. Writes /logs/verifier/scorecard.json.

The agent's /app/reproduce.py runs through ``run_untrusted`` (as nobody, with
/tests and /logs/verifier locked and no verifier environment): hidden study
tables live in a root-owned input directory (the program cannot rewrite the data
the reference is computed from), each run writes into its own scratch
directory."""

import csv
import io
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate as gen  # noqa: E402
import metaref  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SCORECARD = os.environ.get("LHTB_SCORECARD", "/logs/verifier/scorecard.json")
HEADER = ["subgroup", "k", "participants", "or_fixed", "or_random", "ci_low", "ci_high", "i2", "tau2"]
PRINTED_SLACK = {"or_fixed": 0.0051, "or_random": 0.0051, "ci_low": 0.0051, "ci_high": 0.0051,
                 "i2": 0.051, "tau2": 0.00051}


def run_tool(rows, workdir, name):
    data = workdir / name
    data.mkdir()
    (data / "studies.csv").write_text(gen.to_csv(rows) if not isinstance(rows, str) else rows)
    out = Path(scratch_dir()) / f"{name}.csv"
    proc = run_untrusted([sys.executable, str(APP / "reproduce.py"), "--data", str(data), "--out", str(out)],
                         timeout=60, cwd=str(APP))
    text = read_output(out) if proc.ok else None
    if text is None:
        return data, None
    try:
        table = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error:
        return data, None
    if not table or table[0] != HEADER:
        return data, None
    parsed = {}
    for row in table[1:]:
        if len(row) != len(HEADER):
            continue
        try:
            parsed[row[0]] = {c: float(v) for c, v in zip(HEADER[1:], row[1:])}
        except ValueError:
            continue
    return data, parsed


def linear(error, tol, zero_at):
    if error <= tol:
        return 1.0
    if error >= zero_at:
        return 0.0
    return (zero_at - error) / (zero_at - tol)


HALF_LAST_DECIMAL = 0.00005


def value_score(column, got, want):
    if column in ("or_fixed", "or_random", "ci_low", "ci_high"):
        # 4 printed decimals: half a unit of the last one is rounding, not error (it is
        # over 0.1% of a ratio below 0.05, as in sparse zero-cell subgroups).
        return linear(max(abs(got - want) - HALF_LAST_DECIMAL, 0.0) / want, 0.001, 0.02)
    if column == "i2":
        return linear(abs(got - want), 0.02, 2.0)
    if column == "tau2":
        return linear(abs(got - want), 0.0002, 0.02)
    return 1.0 if got == want else 0.0


def rows_scores(got, want, columns):
    """Per-value scores over expected rows (and the given columns); 0 for extra rows."""
    if got is None:
        return [0.0] * (len(want) * len(columns))
    scores = []
    for name, stats in want.items():
        mine = got.get(name)
        for column in columns:
            scores.append(value_score(column, mine[column], stats[column]) if mine else 0.0)
    return scores + [0.0] * (len(set(got) - set(want)) * len(columns))


def pooled(results, columns):
    """Mean per-value score over the rows of several hidden tables."""
    scores = [s for got, want in results for s in rows_scores(got, want, columns)]
    return sum(scores) / len(scores)


def hidden_tables(rows_list, workdir, name):
    """[(tool's table, reference table)] for each hidden studies.csv."""
    out = []
    for number, rows in enumerate(rows_list):
        data, got = run_tool(rows, workdir, f"{name}{number}")
        out.append((got, metaref.table(data / "studies.csv")))
    return out


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    workdir = Path(input_dir())
    public = gen.to_csv(gen.public_rows())
    data, got = run_tool(public, workdir, "public")
    want = metaref.table(data / "studies.csv")
    shaped = got is not None and list(got) == list(want)
    card.check("table_format", shaped, weight=1, visibility="public")
    printed = shaped
    if shaped:
        for name, stats in want.items():
            for column in HEADER[1:]:
                ref = float(gen.fmt_row(name, stats, 2)[HEADER.index(column)])
                printed &= abs(got[name][column] - ref) <= PRINTED_SLACK.get(column, 0.0)
    card.check("published_table", bool(printed), weight=1, visibility="public")

    # Several hidden tables per group, so each hidden subtask scores 20 or more subgroup rows.
    main = hidden_tables([gen.studies(seed * 16 + i, **gen.HIDDEN_MAIN) for i in range(5)], workdir, "main")
    card.add("study_selection", pooled(main, ["k", "participants"]), weight=3,
             message=f"seed {seed}: {sum(len(w) for _, w in main)} rows")
    card.add("fixed_effect", pooled(main, ["or_fixed"]), weight=2)
    card.add("random_effects", pooled(main, ["or_random", "ci_low", "ci_high"]), weight=3)
    card.add("heterogeneity", pooled(main, ["i2", "tau2"]), weight=2)

    rare = hidden_tables([gen.studies(seed * 16 + 5 + i, rare=True, quirks=False) for i in range(4)],
                         workdir, "rare")
    card.add("zero_cells", pooled(rare, ["k", "or_fixed", "or_random", "ci_low", "ci_high"]), weight=2,
             message=f"{sum(len(w) for _, w in rare)} rows")

    single = hidden_tables([gen.studies(seed * 16 + 9 + i, single=True) for i in range(4)], workdir, "single")
    card.add("single_trial_subgroups", pooled(single, HEADER[1:]), weight=1,
             message=f"{sum(len(w) for _, w in single)} rows")

    deliverable = APP / "results" / "table2.csv"
    ok = False
    if deliverable.is_file():
        with open(deliverable, newline="") as handle:
            table = list(csv.reader(handle))
        want = metaref.table(APP / "data" / "studies.csv") if (APP / "data" / "studies.csv").is_file() else {}
        fake = {r[0]: r for r in table[1:]} if table and table[0] == HEADER else {}
        ok = bool(fake) and public == (APP / "data" / "studies.csv").read_text() and list(fake) == list(want)
        if ok:
            for name, stats in want.items():
                for column in HEADER[1:]:
                    try:
                        ok &= value_score(column, float(fake[name][HEADER.index(column)]), stats[column]) == 1.0
                    except (ValueError, IndexError):
                        ok = False
    card.check("deliverable_written", bool(ok), weight=1,
               message=None if ok else "results/table2.csv missing or not the full-precision table")
    card.write(SCORECARD)


if __name__ == "__main__":
    main()
