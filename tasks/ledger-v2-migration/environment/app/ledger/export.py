"""CSV exports for the external accountant (v1 schema)."""

import csv

from ledger import money, repository

CUSTOMER_HEADER = ["id", "name", "email", "country", "currency"]
INVOICE_HEADER = ["id", "customer_id", "number", "issued_on", "currency", "total", "status"]


def export_customers(conn, path):
    rows = repository.list_customers(conn)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CUSTOMER_HEADER)
        for c in rows:
            writer.writerow([c.id, c.name.strip(), (c.email or "").strip(), c.country or "",
                             money.normalise_currency(c.currency)])
    return len(rows)


def export_invoices(conn, path, *, month=None):
    """Invoices (of ``month`` 'YYYY-MM' when given) with totals as the v1 app prints them."""
    invoices = repository.all_invoices(conn)
    if month:
        invoices = [i for i in invoices if i.issued_on.strftime("%Y-%m") == month]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(INVOICE_HEADER)
        for i in invoices:
            writer.writerow([i.id, i.customer_id, i.number, i.issued_on.isoformat(),
                             money.normalise_currency(i.currency), money.format_amount(i.total_amount),
                             i.status.strip().lower()])
    return len(invoices)
