"""Import invoices exported by the order system (one CSV row per invoice line).

Columns: customer_email, invoice_number, issued_on, currency, description, quantity,
unit_price, tax_rate. Rows of one invoice share its number; the invoice total is computed
the way the v1 app always did (see ledger.money.invoice_total).
"""

from collections import OrderedDict

from ledger import db, money, repository
from ledger.importers import ImportError_, read_csv

REQUIRED = ("customer_email", "invoice_number", "issued_on", "currency", "description", "quantity",
            "unit_price", "tax_rate")


def group_rows(rows):
    invoices = OrderedDict()
    for row in rows:
        number = row["invoice_number"].strip()
        if not number:
            raise ImportError_(f"line {row['_line']}: empty invoice_number")
        invoices.setdefault(number, []).append(row)
    return invoices


def import_file(conn, path, *, dry_run=False):
    """Insert the invoices of ``path``; returns (created, skipped) invoice numbers."""
    created, skipped = [], []
    rows = read_csv(path, REQUIRED)
    with db.transaction(conn):
        for number, group in group_rows(rows).items():
            if db.fetch_value(conn, "SELECT 1 FROM invoices WHERE number = %s", (number,)):
                skipped.append(number)
                continue
            head = group[0]
            customer = repository.find_customer(conn, head["customer_email"].strip())
            if customer is None:
                raise ImportError_(f"line {head['_line']}: unknown customer {head['customer_email']!r}")
            lines = [(float(r["quantity"]), money.parse_amount(r["unit_price"]), money.parse_rate(r["tax_rate"]))
                     for r in group]
            total = money.invoice_total(lines)
            invoice_id = repository.insert_invoice(conn, customer.id, number, head["issued_on"],
                                                   money.normalise_currency(head["currency"], customer.currency),
                                                   money.format_amount(total))
            for r in group:
                repository.insert_line(conn, invoice_id, r["description"], r["quantity"], r["unit_price"],
                                       r["tax_rate"])
            created.append(number)
        if dry_run:
            conn.rollback()
    return created, skipped
