"""Hidden checks for ap-invoice-close. Writes /logs/verifier/scorecard.json."""

import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import apref  # noqa: E402
import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard  # noqa: E402

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


def run_tool(in_dir, out_dir):
    try:
        proc = subprocess.run([sys.executable, str(APP / "close.py"), str(in_dir), str(out_dir)],
                              capture_output=True, timeout=60, cwd=str(APP))
    except subprocess.TimeoutExpired:
        return False
    return proc.returncode == 0


def read_outputs(out_dir):
    """({invoice_id: outcome}, summary, shaped) from the tool's deliverables."""
    outcomes, shaped, conflicts = {}, True, set()
    for name, header in HEADERS.items():
        path = out_dir / name
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                table = list(csv.reader(handle))
        except (OSError, UnicodeDecodeError, csv.Error):
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
        summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
        if not isinstance(summary, dict) or not SUMMARY_KEYS <= set(summary):
            shaped, summary = False, summary if isinstance(summary, dict) else {}
    except (OSError, ValueError):
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
    seed = int(os.environ.get("LHTB_SEED") or int.from_bytes(os.urandom(4), "big"))
    card = Scorecard()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        files, _ = gen.build(gen.PUBLIC_SEED, public=True)
        gen.write(files, work / "sample")
        ran = run_tool(work / "sample", work / "sample_out")
        got, summary, shaped = read_outputs(work / "sample_out") if ran else ({}, {}, False)
        card.check("deliverables_shape", ran and shaped, weight=1, visibility="public")
        want, want_summary = apref.close(work / "sample")
        same = ran and shaped and set(got) == set(want) and fraction(want, got, want) == 1.0 \
            and summary_score(summary, want_summary) > 0.999999
        card.check("sample_matches", bool(same), weight=1, visibility="public")

        files, tags = gen.build(seed)
        gen.write(files, work / "hidden")
        ran = run_tool(work / "hidden", work / "hidden_out")
        got, summary, _ = read_outputs(work / "hidden_out") if ran else ({}, {}, False)
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
