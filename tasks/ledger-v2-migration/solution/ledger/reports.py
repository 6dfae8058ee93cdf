"""Reports on schema v2: balances, ageing and the month-end trial balance (docs/month_end.md)."""

import csv
import json
import os
from datetime import date

from ledger import db

TRIAL_BALANCE_HEADER = ["customer_id", "email", "currency", "opening_cents", "invoiced_cents",
                        "adjustments_cents", "received_cents", "closing_cents"]

_BALANCE = """
SELECT a.id, a.customer_id, coalesce(c.email, '') AS email, a.currency,
  coalesce((SELECT sum(i.total_cents) FROM invoices i
            WHERE i.account_id = a.id AND i.status <> 'void' AND i.issued_on < %(first)s), 0)
  + coalesce((SELECT sum(j.amount_cents) FROM adjustments j JOIN invoices i ON i.id = j.invoice_id
            WHERE j.account_id = a.id AND i.status <> 'void' AND j.effective_on < %(first)s), 0)
  - coalesce((SELECT sum(p.amount_cents) FROM payments p
            WHERE p.account_id = a.id AND p.received_on < %(first)s), 0) AS opening_cents,
  coalesce((SELECT sum(i.total_cents) FROM invoices i
            WHERE i.account_id = a.id AND i.status <> 'void'
              AND i.issued_on >= %(first)s AND i.issued_on < %(next)s), 0) AS invoiced_cents,
  coalesce((SELECT sum(j.amount_cents) FROM adjustments j JOIN invoices i ON i.id = j.invoice_id
            WHERE j.account_id = a.id AND i.status <> 'void'
              AND j.effective_on >= %(first)s AND j.effective_on < %(next)s), 0) AS adjustments_cents,
  coalesce((SELECT sum(p.amount_cents) FROM payments p
            WHERE p.account_id = a.id AND p.received_on >= %(first)s AND p.received_on < %(next)s), 0)
    AS received_cents
FROM accounts a JOIN customers c ON c.id = a.customer_id
WHERE %(customer)s::integer IS NULL OR a.customer_id = %(customer)s::integer
ORDER BY a.customer_id, a.currency
"""


def month_bounds(month):
    """('2024-06') -> (date(2024, 6, 1), date(2024, 7, 1))."""
    try:
        year, mon = (int(part) for part in month.split("-"))
        first = date(year, mon, 1)
    except ValueError as exc:
        raise ValueError(f"month must look like YYYY-MM, got {month!r}") from exc
    following = date(year + (mon == 12), 1 if mon == 12 else mon + 1, 1)
    return first, following


def _rows(conn, first, following, customer=None):
    return db.fetch_all(conn, _BALANCE, {"first": first, "next": following, "customer": customer})


def balances(conn, customer_id):
    """{currency: cents owed} over all time (void invoices excluded)."""
    far = date(9999, 1, 1)
    return {r["currency"].strip(): int(r["opening_cents"]) for r in _rows(conn, far, far, customer_id)}


def ageing(conn, as_of):
    """Open invoice totals by customer and age bucket (0-30, 31-60, 61-90, 90+ days)."""
    out = {}
    for r in db.fetch_all(conn, "SELECT a.customer_id, i.issued_on, i.total_cents FROM invoices i "
                                "JOIN accounts a ON a.id = i.account_id WHERE i.status = 'open' AND i.issued_on <= %s",
                          (as_of,)):
        age = (as_of - r["issued_on"]).days
        index = 0 if age <= 30 else 1 if age <= 60 else 2 if age <= 90 else 3
        out.setdefault(r["customer_id"], [0, 0, 0, 0])[index] += r["total_cents"]
    return out


def trial_balance(conn, month):
    first, following = month_bounds(month)
    out = []
    for r in _rows(conn, first, following):
        values = [int(r[k]) for k in TRIAL_BALANCE_HEADER[3:7]]
        closing = values[0] + values[1] + values[2] - values[3]
        out.append([r["customer_id"], r["email"], r["currency"].strip(), *values, closing])
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
