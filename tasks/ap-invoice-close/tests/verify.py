"""Hidden checks for ap-invoice-close. Writes /logs/verifier/scorecard.json.

The agent's /app/close.py runs through ``run_untrusted`` (as nobody, with
/tests and /logs/verifier locked and no verifier environment): the hidden
documents live in a root-owned input directory (the program cannot rewrite what
the reference reads), each run writes its deliverables into its own scratch
directory."""

import csv
import io
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import apref  # noqa: E402
import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SCORECARD = os.environ.get("LHTB_SCORECARD", "/logs/verifier/scorecard.json")
HEADERS = {
    "payment_run.csv": ["invoice_id", "vendor_id", "invoice_number", "currency", "gross", "discount", "net",
                        "fx_rate", "usd_amount"],
    "exceptions.csv": ["invoice_id", "vendor_id", "reason"],
    "deferred.csv": ["invoice_id", "vendor_id", "due_date", "currency", "gross"],
}
SUMMARY_KEYS = {"run_date", "invoices", "paid", "held", "deferred", "paid_usd", "discount_usd",
                "held_by_reason", "paid_usd_by_vendor"}


def run_tool(in_dir):
    """The output directory (in a fresh scratch directory) if the tool exited 0, else None."""
    out_dir = Path(scratch_dir()) / "out"
    proc = run_untrusted([sys.executable, str(APP / "close.py"), str(in_dir), str(out_dir)],
                         timeout=60, cwd=str(APP))
    return out_dir if proc.ok else None


def read_outputs(out_dir):
    """({invoice_id: outcome}, summary, shaped) from the tool's deliverables."""
    outcomes, shaped, conflicts = {}, True, set()
    for name, header in HEADERS.items():
        text = read_output(out_dir / name, binary=True)
        try:
            table = list(csv.reader(io.StringIO(text.decode("utf-8"), newline="")))
        except (AttributeError, UnicodeDecodeError, csv.Error):
            shaped = False
            continue
        if not table or table[0] != header:
            shaped = False
            continue
        for row in table[1:]:
            if len(row) != len(header):
                shaped = False
                continue
            record = dict(zip(header, row))
            record["status"] = {"payment_run.csv": "paid", "exceptions.csv": "held"}.get(name, "deferred")
            if record["invoice_id"] in outcomes:
                conflicts.add(record["invoice_id"])
            outcomes[record["invoice_id"]] = record
    for ident in conflicts:
        outcomes[ident] = {"status": "conflict"}
    try:
        summary = json.loads(read_output(out_dir / "summary.json", binary=True) or b"")
        if not isinstance(summary, dict) or not SUMMARY_KEYS <= set(summary):
            shaped, summary = False, summary if isinstance(summary, dict) else {}
    except ValueError:
        shaped, summary = False, {}
    return outcomes, summary, shaped


def near(text, value, slack=0.011):
    try:
        return abs(float(text) - float(value)) <= slack
    except (TypeError, ValueError):
        return False


def outcome_ok(got, want):
    if not got or got.get("status") != want["status"] or got.get("vendor_id") != want["vendor_id"]:
        return False
    if want["status"] == "held":
        return got.get("reason") == want["reason"]
    if want["status"] == "deferred":
        return got.get("due_date") == want["due_date"] and near(got.get("gross"), want["gross"]) \
            and got.get("currency") == want["currency"]
    return all(near(got.get(k), want[k]) for k in ("gross", "discount", "net", "usd_amount")) \
        and near(got.get("fx_rate"), want["fx_rate"], 1e-9) and got.get("currency") == want["currency"]


def fraction(idents, got, want):
    idents = sorted(idents)
    if not idents:
        return 1.0
    return sum(outcome_ok(got.get(i), want[i]) for i in idents) / len(idents)


def summary_score(summary, want):
    try:
        paid = float(summary.get("paid_usd"))
    except (TypeError, ValueError):
        paid = None
    total = want["paid_usd"]
    if paid is None:
        money = 0.0
    else:
        err = abs(paid - total)
        zero_at = max(0.02 * total, 1.0)
        money = 1.0 if err <= 0.02 else max(0.0, (zero_at - err) / (zero_at - 0.02))
    counts = all(summary.get(k) == want[k] for k in ("invoices", "paid", "held", "deferred", "held_by_reason"))
    vendors = summary.get("paid_usd_by_vendor")
    by_vendor = isinstance(vendors, dict) and set(vendors) == set(want["paid_usd_by_vendor"]) and all(
        near(vendors[k], v, 0.02) for k, v in want["paid_usd_by_vendor"].items())
    discount = near(summary.get("discount_usd"), want["discount_usd"], 0.02)
    return round(0.4 * money + 0.3 * counts + 0.2 * by_vendor + 0.1 * discount, 9)


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    work = Path(input_dir())
    files, _ = gen.build(gen.PUBLIC_SEED, public=True)
    gen.write(files, work / "sample")
    out = run_tool(work / "sample")
    ran = out is not None
    got, summary, shaped = read_outputs(out) if ran else ({}, {}, False)
    card.check("deliverables_shape", ran and shaped, weight=1, visibility="public")
    want, want_summary = apref.close(work / "sample")
    same = ran and shaped and set(got) == set(want) and fraction(want, got, want) == 1.0 \
        and summary_score(summary, want_summary) > 0.999999
    card.check("sample_matches", bool(same), weight=1, visibility="public")

    files, tags = gen.build(seed)
    gen.write(files, work / "hidden")
    out = run_tool(work / "hidden")
    ran = out is not None
    got, summary, _ = read_outputs(out) if ran else ({}, {}, False)
    want, want_summary = apref.close(work / "hidden")
    extra = set(got) - set(want)
    note = f"seed {seed}" + (f"; {len(extra)} unknown invoice ids in the output" if extra else "")

    def tagged(tag, status=None):
        return [i for i, t in tags.items() if tag in t and (status is None or want[i]["status"] == status)]

    card.add("text_invoices", fraction(tagged("text"), got, want), weight=2, message=note)
    card.add("three_way_match", fraction(tagged("match"), got, want), weight=3)
    card.add("duplicates", fraction(tagged("duplicate"), got, want), weight=2)
    card.add("vendor_controls", fraction(tagged("vendor"), got, want), weight=2)
    card.add("fx_conversion", fraction(tagged("fx", "paid") or tagged("fx"), got, want), weight=2)
    card.add("payment_timing", fraction(tagged("timing") + tagged("clean"), got, want), weight=2)
    card.add("summary_totals", summary_score(summary, want_summary) if ran else 0.0, weight=2)
    card.write(SCORECARD)


if __name__ == "__main__":
    main()
