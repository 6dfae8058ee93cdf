"""Import a bank statement export (payments received).

Columns: date, amount, currency, reference, payer_email, invoice_number (may be empty).
A payment whose invoice number is unknown is recorded without an invoice.
"""

from ledger import db, money, repository
from ledger.importers import ImportError_, read_csv

REQUIRED = ("date", "amount", "currency", "reference", "payer_email", "invoice_number")


def import_statement(conn, path, *, mark_paid=True):
    """Insert the statement's payments; returns the new payment ids. Re-imports are skipped
    by bank reference."""
    created = []
    with db.transaction(conn):
        for row in read_csv(path, REQUIRED):
            reference = row["reference"].strip()
            if reference and db.fetch_value(conn, "SELECT 1 FROM payments WHERE reference = %s", (reference,)):
                continue
            customer = repository.find_customer(conn, row["payer_email"].strip())
            if customer is None:
                raise ImportError_(f"line {row['_line']}: unknown payer {row['payer_email']!r}")
            invoice_id = None
            number = row["invoice_number"].strip()
            if number:
                invoice_id = db.fetch_value(conn, "SELECT id FROM invoices WHERE number = %s", (number,))
            amount = money.parse_amount(row["amount"])
            payment_id = repository.insert_payment(conn, customer.id, invoice_id, money.format_amount(amount),
                                                   row["currency"].strip() or None, row["date"], reference)
            created.append(payment_id)
            if mark_paid and invoice_id is not None:
                _settle(conn, invoice_id)
    return created


def _settle(conn, invoice_id):
    """Mark the invoice paid once its payments cover the total."""
    total = money.parse_amount(db.fetch_value(conn, "SELECT total FROM invoices WHERE id = %s", (invoice_id,)))
    paid = sum(money.parse_amount(a) for (a,) in _amounts(conn, invoice_id))
    if paid + 0.005 >= total:
        repository.mark_paid(conn, invoice_id)


def _amounts(conn, invoice_id):
    with conn.cursor() as cur:
        cur.execute("SELECT amount FROM payments WHERE invoice_id = %s", (invoice_id,))
        return cur.fetchall()
