"""Verifier-side reference for the AP payment run (kept apart from the oracle)."""

import csv
import datetime as dt
import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

CENT = Decimal("0.01")


def cents(value):
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def day(text):
    return dt.date.fromisoformat(text.strip())


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def parse_text_invoice(text):
    fields, lines = {}, []
    for raw in text.splitlines():
        line = raw.strip()
        match = re.match(r"(?i)line\s+(\d+)\s*:\s*(\S+)\s+qty\s+(\d+)\s*@\s*([0-9.]+)", line)
        if match:
            lines.append({"po_line": int(match[1]), "sku": match[2], "qty": int(match[3]),
                          "unit_price": match[4]})
            continue
        label, sep, value = line.partition(":")
        if not sep:
            continue
        key = label.strip().lower()
        value = value.strip()
        if key == "vendor id":
            fields["vendor_id"] = value
        elif key in ("invoice no.", "invoice #"):
            fields["invoice_number"] = value
        elif key == "date":
            d, m, y = value.split("/")
            fields["invoice_date"] = f"{int(y):04d}-{int(m):02d}-{int(d):02d}"
        elif key in ("po", "purchase order"):
            fields["po_number"] = value
        elif key == "currency":
            fields["currency"] = value
    fields["lines"] = lines
    return fields


def load_invoices(folder):
    invoices = []
    for path in sorted((folder / "invoices").iterdir()):
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".txt":
            data = parse_text_invoice(path.read_text(encoding="utf-8"))
        else:
            continue
        data["invoice_id"] = path.stem
        for line in data["lines"]:
            line["qty"] = int(line["qty"])
            line["unit_price"] = Decimal(str(line["unit_price"]))
        invoices.append(data)
    invoices.sort(key=lambda inv: (inv["invoice_date"], inv["invoice_id"]))
    return invoices


def norm_number(text):
    return re.sub(r"[\s\-/.]", "", text).upper()


def parse_terms(text):
    match = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)/(\d+)\s+)?net\s+(\d+)\s*", text.lower())
    pct, window, days = match.groups()
    return (Decimal(pct) if pct else Decimal(0)), (int(window) if window else None), int(days)


def close(folder):
    """{invoice_id: outcome} and the summary for the input folder."""
    folder = Path(folder)
    run_date = day(json.loads((folder / "run.json").read_text())["run_date"])
    vendors = {v["vendor_id"]: v for v in rows(folder / "vendors.csv")}
    pos = {}
    for r in rows(folder / "purchase_orders.csv"):
        po = pos.setdefault(r["po_number"], {"vendor_id": r["vendor_id"], "currency": r["currency"], "lines": {}})
        po["lines"][int(r["line"])] = Decimal(r["unit_price"])
    received = {}
    for r in rows(folder / "receipts.csv"):
        key = (r["po_number"], int(r["line"]))
        received[key] = received.get(key, 0) + int(r["qty_received"])
    rates = {}
    for r in rows(folder / "fx_rates.csv"):
        rates.setdefault(r["currency"], []).append((day(r["date"]), r["usd_per_unit"].strip()))
    for series in rates.values():
        series.sort()

    def rate(currency, on):
        if currency == "USD":
            return "1"
        best = None
        for when, value in rates.get(currency, []):
            if when <= on:
                best = value
        return best

    seen, consumed, outcomes = set(), {}, {}
    for inv in load_invoices(folder):
        vid = inv["vendor_id"]
        vendor = vendors.get(vid, {})
        key = (vid, norm_number(inv["invoice_number"]))
        reason = None
        po = pos.get(inv["po_number"])
        if key in seen:
            reason = "DUPLICATE"
        elif vendor.get("status") == "blocked":
            reason = "BLOCKED_VENDOR"
        elif vendor.get("bank_changed_on", "").strip() and \
                run_date - dt.timedelta(days=30) <= day(vendor["bank_changed_on"]) <= run_date:
            reason = "BANK_CHANGE_REVIEW"
        elif po is None or po["vendor_id"] != vid or any(l["po_line"] not in po["lines"] for l in inv["lines"]):
            reason = "NO_PO"
        elif inv["currency"] != po["currency"]:
            reason = "CURRENCY_MISMATCH"
        elif any(l["qty"] + consumed.get((inv["po_number"], l["po_line"]), 0)
                 > received.get((inv["po_number"], l["po_line"]), 0) for l in inv["lines"]):
            reason = "QTY_EXCEEDS_RECEIPT"
        elif any(abs(l["unit_price"] - po["lines"][l["po_line"]])
                 > max(po["lines"][l["po_line"]] * Decimal("0.02"), Decimal("0.50")) for l in inv["lines"]):
            reason = "PRICE_VARIANCE"
        seen.add(key)
        base = {"vendor_id": vid, "invoice_number": inv["invoice_number"]}
        if reason:
            outcomes[inv["invoice_id"]] = {**base, "status": "held", "reason": reason}
            continue
        for l in inv["lines"]:
            k = (inv["po_number"], l["po_line"])
            consumed[k] = consumed.get(k, 0) + l["qty"]
        gross = cents(sum((l["qty"] * l["unit_price"] for l in inv["lines"]), Decimal(0)))
        pct, window, net_days = parse_terms(vendor["terms"])
        invoice_date = day(inv["invoice_date"])
        due = invoice_date + dt.timedelta(days=net_days)
        window_open = window is not None and run_date <= invoice_date + dt.timedelta(days=window)
        if not window_open and due > run_date + dt.timedelta(days=14):
            outcomes[inv["invoice_id"]] = {**base, "status": "deferred", "due_date": due.isoformat(),
                                           "currency": inv["currency"], "gross": gross}
            continue
        discount = cents(gross * pct / 100) if window_open else Decimal("0.00")
        fx = rate(inv["currency"], invoice_date)
        net = gross - discount
        outcomes[inv["invoice_id"]] = {
            **base, "status": "paid", "currency": inv["currency"], "gross": gross, "discount": discount,
            "net": net, "fx_rate": fx, "usd_amount": cents(net * Decimal(fx)),
            "usd_discount": cents(discount * Decimal(fx)),
        }
    paid = {k: v for k, v in outcomes.items() if v["status"] == "paid"}
    held = [v["reason"] for v in outcomes.values() if v["status"] == "held"]
    by_vendor = {}
    for v in paid.values():
        by_vendor[v["vendor_id"]] = by_vendor.get(v["vendor_id"], Decimal(0)) + v["usd_amount"]
    summary = {
        "run_date": run_date.isoformat(),
        "invoices": len(outcomes),
        "paid": len(paid),
        "held": len(held),
        "deferred": sum(1 for v in outcomes.values() if v["status"] == "deferred"),
        "paid_usd": float(sum((v["usd_amount"] for v in paid.values()), Decimal(0))),
        "discount_usd": float(sum((v["usd_discount"] for v in paid.values()), Decimal(0))),
        "held_by_reason": {r: held.count(r) for r in sorted(set(held))},
        "paid_usd_by_vendor": {k: float(v) for k, v in sorted(by_vendor.items()) if v},
    }
    return outcomes, summary
