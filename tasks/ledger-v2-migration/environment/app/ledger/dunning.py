"""Payment reminders for overdue invoices (v1 schema).

Terms are 30 days. The first reminder goes out at 14 days overdue, the second at 30,
the final notice at 60. Letters are plain text, one file per customer.
"""

import os
from datetime import timedelta

from ledger import money, repository

TERMS = timedelta(days=30)
STAGES = ((60, "final notice"), (30, "second reminder"), (14, "reminder"))
TEMPLATE = """Dear {name},

our records show the following invoice(s) as unpaid:

{lines}

Total outstanding: {total} {currency}

Please pay within 7 days or contact billing@northwind.example if you have already paid.

Northwind Services, Accounts Receivable
"""


def stage_for(days_overdue):
    for threshold, label in STAGES:
        if days_overdue >= threshold:
            return label
    return None


def overdue(conn, customer, as_of):
    """[(invoice, days overdue, stage)] of a customer's open invoices past their terms."""
    out = []
    for invoice in repository.invoices_for(conn, customer.id):
        if invoice.status.strip().lower() != "open":
            continue
        days = (as_of - (invoice.issued_on + TERMS)).days
        stage = stage_for(days)
        if stage:
            out.append((invoice, days, stage))
    return out


def letters(conn, as_of, out_dir):
    """Write one letter per customer with overdue invoices; returns how many were written."""
    os.makedirs(out_dir, exist_ok=True)
    written = 0
    for customer in repository.list_customers(conn):
        items = overdue(conn, customer, as_of)
        if not items:
            continue
        by_currency = {}
        for invoice, days, stage in items:
            currency = money.normalise_currency(invoice.currency, customer.currency or "USD")
            by_currency.setdefault(currency, []).append((invoice, days, stage))
        for currency, group in by_currency.items():
            lines = "\n".join(f"  {inv.number}  issued {inv.issued_on}  {money.format_amount(inv.total_amount)}"
                              f"  ({days} days overdue, {stage})" for inv, days, stage in group)
            total = sum(inv.total_amount for inv, _, _ in group)
            text = TEMPLATE.format(name=customer.name.strip(), lines=lines, total=money.format_amount(total),
                                   currency=currency)
            with open(os.path.join(out_dir, f"customer-{customer.id}-{currency}.txt"), "w",
                      encoding="utf-8") as handle:
                handle.write(text)
            written += 1
    return written
