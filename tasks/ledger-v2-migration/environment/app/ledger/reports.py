"""Reports: customer balances, ageing, and the month-end trial balance (docs/month_end.md).

Written against schema v1: amounts are parsed from text with floats and every customer row
is its own account. Finance wants the same deliverables from schema v2.
"""

import csv
import json
import os
from collections import defaultdict
from datetime import date, timedelta

from ledger import money, repository

TRIAL_BALANCE_HEADER = ["customer_id", "email", "currency", "opening_cents", "invoiced_cents",
                        "adjustments_cents", "received_cents", "closing_cents"]


def month_bounds(month):
    """('2024-06') -> (date(2024, 6, 1), date(2024, 7, 1))."""
    try:
        year, mon = (int(part) for part in month.split("-"))
        first = date(year, mon, 1)
    except ValueError as exc:
        raise ValueError(f"month must look like YYYY-MM, got {month!r}") from exc
    following = date(year + (mon == 12), 1 if mon == 12 else mon + 1, 1)
    return first, following


def balances(conn, customer):
    """{currency: amount owed} for one customer (v1: floats)."""
    out = defaultdict(float)
    for invoice in repository.invoices_for(conn, customer.id):
        if invoice.is_void:
            continue
        out[money.normalise_currency(invoice.currency, customer.currency or "USD")] += invoice.total_amount
    for payment in repository.payments_for(conn, customer.id):
        out[money.normalise_currency(payment.currency, customer.currency or "USD")] -= payment.amount_value
    return dict(out)


def ageing(conn, as_of):
    """Open invoice amounts by customer and age bucket (0-30, 31-60, 61-90, 90+ days)."""
    buckets = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for invoice in repository.all_invoices(conn, until=as_of):
        if invoice.status != "open":
            continue
        age = (as_of - invoice.issued_on).days
        index = 0 if age <= 30 else 1 if age <= 60 else 2 if age <= 90 else 3
        buckets[invoice.customer_id][index] += invoice.total_amount
    return dict(buckets)


def trial_balance(conn, month):
    """Rows of the month-end trial balance (v1 version)."""
    first, following = month_bounds(month)
    rows = {}
    customers = {c.id: c for c in repository.list_customers(conn)}

    def row_for(customer_id, currency):
        key = (customer_id, currency)
        if key not in rows:
            rows[key] = {"opening": 0.0, "invoiced": 0.0, "adjustments": 0.0, "received": 0.0}
        return rows[key]

    for invoice in repository.all_invoices(conn, until=following - timedelta(days=1)):
        if invoice.is_void:
            continue
        customer = customers[invoice.customer_id]
        row = row_for(customer.id, money.normalise_currency(invoice.currency, customer.currency or "USD"))
        if invoice.issued_on < first:
            row["opening"] += invoice.total_amount
        else:
            row["invoiced"] += invoice.total_amount
    for payment in repository.all_payments(conn, until=following - timedelta(days=1)):
        customer = customers[payment.customer_id]
        row = row_for(customer.id, money.normalise_currency(payment.currency, customer.currency or "USD"))
        if payment.received_on < first:
            row["opening"] -= payment.amount_value
        else:
            row["received"] += payment.amount_value
    out = []
    for (customer_id, currency), r in sorted(rows.items()):
        closing = r["opening"] + r["invoiced"] + r["adjustments"] - r["received"]
        out.append([customer_id, customers[customer_id].email or "", currency, money.to_cents(r["opening"]),
                    money.to_cents(r["invoiced"]), money.to_cents(r["adjustments"]),
                    money.to_cents(r["received"]), money.to_cents(closing)])
    return out


def summarise(month, rows):
    totals = {}
    for row in rows:
        t = totals.setdefault(row[2], {k: 0 for k in TRIAL_BALANCE_HEADER[3:]})
        for key, value in zip(TRIAL_BALANCE_HEADER[3:], row[3:]):
            t[key] += value
    return {"month": month, "accounts": len(rows), "totals": totals}


def write_month_end(conn, month, out_dir):
    """Write trial_balance.csv and summary.json for ``month`` into ``out_dir``."""
    rows = trial_balance(conn, month)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "trial_balance.csv"), "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(TRIAL_BALANCE_HEADER)
        writer.writerows(rows)
    with open(os.path.join(out_dir, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(summarise(month, rows), handle, indent=2, sort_keys=True)
        handle.write("\n")
    return rows
