"""Prepare an AP payment run from an input folder (see /app/docs).

Usage: python3 close.py INPUT_DIR OUTPUT_DIR
"""

import csv
import datetime as dt
import json
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

TWO = Decimal("0.01")
HOLD_ORDER = ["DUPLICATE", "BLOCKED_VENDOR", "BANK_CHANGE_REVIEW", "NO_PO", "CURRENCY_MISMATCH",
              "QTY_EXCEEDS_RECEIPT", "PRICE_VARIANCE"]
LINE_RE = re.compile(r"^\s*line\s+(\d+)\s*:\s*(\S+)\s+qty\s+(\d+)\s*@\s*([\d.,]+)\s*$", re.I)
FIELD_LABELS = {"vendor id": "vendor_id", "invoice no.": "invoice_number", "invoice #": "invoice_number",
                "date": "invoice_date", "po": "po_number", "purchase order": "po_number", "currency": "currency"}


def money(value):
    return value.quantize(TWO, rounding=ROUND_HALF_UP)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def parse_email(text):
    invoice = {"lines": []}
    for line in text.splitlines():
        found = LINE_RE.match(line)
        if found:
            invoice["lines"].append({"po_line": int(found.group(1)), "sku": found.group(2),
                                     "qty": int(found.group(3)), "unit_price": found.group(4).replace(",", "")})
            continue
        if ":" not in line:
            continue
        label, value = (part.strip() for part in line.split(":", 1))
        field = FIELD_LABELS.get(label.lower())
        if field == "invoice_date":
            day, month, year = (int(x) for x in value.split("/"))
            value = dt.date(year, month, day).isoformat()
        if field:
            invoice[field] = value
    return invoice


def load_invoices(folder):
    invoices = []
    for path in (folder / "invoices").iterdir():
        if path.suffix == ".json":
            invoice = json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".txt":
            invoice = parse_email(path.read_text(encoding="utf-8"))
        else:
            continue
        invoice["invoice_id"] = path.stem
        invoice["date"] = dt.date.fromisoformat(invoice["invoice_date"])
        for line in invoice["lines"]:
            line["qty"] = int(line["qty"])
            line["unit_price"] = Decimal(str(line["unit_price"]))
        invoices.append(invoice)
    return sorted(invoices, key=lambda inv: (inv["date"], inv["invoice_id"]))


class FxTable:
    def __init__(self, rows):
        self.series = {}
        for row in rows:
            self.series.setdefault(row["currency"], []).append((dt.date.fromisoformat(row["date"]), row["usd_per_unit"]))
        for values in self.series.values():
            values.sort()

    def rate(self, currency, on):
        if currency == "USD":
            return "1"
        usable = [value for when, value in self.series.get(currency, []) if when <= on]
        if not usable:
            raise ValueError(f"no {currency} rate on or before {on}")
        return usable[-1]


def terms_of(text):
    found = re.fullmatch(r"(?:([\d.]+)/(\d+)\s+)?net\s+(\d+)", text.strip().lower())
    if not found:
        raise ValueError(f"unknown terms {text!r}")
    pct, window, days = found.groups()
    return Decimal(pct or 0), None if window is None else int(window), int(days)


def run(in_dir, out_dir):
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    run_date = dt.date.fromisoformat(json.loads((in_dir / "run.json").read_text())["run_date"])
    vendors = {row["vendor_id"]: row for row in read_csv(in_dir / "vendors.csv")}
    orders = {}
    for row in read_csv(in_dir / "purchase_orders.csv"):
        order = orders.setdefault(row["po_number"], {"vendor": row["vendor_id"], "currency": row["currency"], "price": {}})
        order["price"][int(row["line"])] = Decimal(row["unit_price"])
    received = {}
    for row in read_csv(in_dir / "receipts.csv"):
        key = (row["po_number"], int(row["line"]))
        received[key] = received.get(key, 0) + int(row["qty_received"])
    fx = FxTable(read_csv(in_dir / "fx_rates.csv"))

    seen_numbers = set()
    invoiced = {}
    paid, held, deferred = [], [], []
    invoices = load_invoices(in_dir)
    for inv in invoices:
        vendor = vendors.get(inv["vendor_id"], {})
        number_key = (inv["vendor_id"], re.sub(r"[\s\-/.]+", "", inv["invoice_number"]).upper())
        order = orders.get(inv["po_number"])
        checks = {
            "DUPLICATE": lambda: number_key in seen_numbers,
            "BLOCKED_VENDOR": lambda: vendor.get("status", "").strip() == "blocked",
            "BANK_CHANGE_REVIEW": lambda: bool(vendor.get("bank_changed_on", "").strip()) and 0 <= (
                run_date - dt.date.fromisoformat(vendor["bank_changed_on"].strip())).days <= 30,
            "NO_PO": lambda: order is None or order["vendor"] != inv["vendor_id"]
            or any(line["po_line"] not in order["price"] for line in inv["lines"]),
            "CURRENCY_MISMATCH": lambda: inv["currency"] != order["currency"],
            "QTY_EXCEEDS_RECEIPT": lambda: any(
                invoiced.get((inv["po_number"], line["po_line"]), 0) + line["qty"]
                > received.get((inv["po_number"], line["po_line"]), 0) for line in inv["lines"]),
            "PRICE_VARIANCE": lambda: any(
                abs(line["unit_price"] - order["price"][line["po_line"]])
                > max(Decimal("0.02") * order["price"][line["po_line"]], Decimal("0.50")) for line in inv["lines"]),
        }
        reason = next((code for code in HOLD_ORDER if checks[code]()), None)
        seen_numbers.add(number_key)
        if reason:
            held.append([inv["invoice_id"], inv["vendor_id"], reason])
            continue
        for line in inv["lines"]:
            key = (inv["po_number"], line["po_line"])
            invoiced[key] = invoiced.get(key, 0) + line["qty"]
        gross = money(sum((line["unit_price"] * line["qty"] for line in inv["lines"]), Decimal(0)))
        pct, window, days = terms_of(vendor["terms"])
        due = inv["date"] + dt.timedelta(days=days)
        window_open = window is not None and (run_date - inv["date"]).days <= window
        if not window_open and (due - run_date).days > 14:
            deferred.append([inv["invoice_id"], inv["vendor_id"], due.isoformat(), inv["currency"], f"{gross:.2f}"])
            continue
        discount = money(gross * pct / 100) if window_open else Decimal("0.00")
        rate = fx.rate(inv["currency"], inv["date"])
        net = gross - discount
        paid.append({"row": [inv["invoice_id"], inv["vendor_id"], inv["invoice_number"], inv["currency"],
                             f"{gross:.2f}", f"{discount:.2f}", f"{net:.2f}", rate,
                             f"{money(net * Decimal(rate)):.2f}"],
                     "usd": money(net * Decimal(rate)), "usd_discount": money(discount * Decimal(rate))})

    out_dir.mkdir(parents=True, exist_ok=True)
    paid.sort(key=lambda p: p["row"][0])
    write_csv(out_dir / "payment_run.csv", ["invoice_id", "vendor_id", "invoice_number", "currency", "gross",
                                            "discount", "net", "fx_rate", "usd_amount"], [p["row"] for p in paid])
    write_csv(out_dir / "exceptions.csv", ["invoice_id", "vendor_id", "reason"], sorted(held))
    write_csv(out_dir / "deferred.csv", ["invoice_id", "vendor_id", "due_date", "currency", "gross"], sorted(deferred))
    by_reason, by_vendor = {}, {}
    for _, _, reason in held:
        by_reason[reason] = by_reason.get(reason, 0) + 1
    for p in paid:
        by_vendor[p["row"][1]] = by_vendor.get(p["row"][1], Decimal(0)) + p["usd"]
    summary = {
        "run_date": run_date.isoformat(), "invoices": len(invoices),
        "paid": len(paid), "held": len(held), "deferred": len(deferred),
        "paid_usd": float(sum((p["usd"] for p in paid), Decimal(0))),
        "discount_usd": float(sum((p["usd_discount"] for p in paid), Decimal(0))),
        "held_by_reason": dict(sorted(by_reason.items())),
        "paid_usd_by_vendor": {k: float(v) for k, v in sorted(by_vendor.items()) if v},
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    run(sys.argv[1], sys.argv[2])
