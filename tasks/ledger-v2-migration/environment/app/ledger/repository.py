"""Queries of the v1 schema. Every function takes an open connection."""

from ledger import db
from ledger.models import Customer, Invoice, InvoiceLine, Payment


def list_customers(conn):
    return [Customer.from_row(r) for r in db.fetch_all(conn, "SELECT * FROM customers ORDER BY id")]


def find_customer(conn, email):
    """The customer with this e-mail address (v1: exact match), or None."""
    row = db.fetch_one(conn, "SELECT * FROM customers WHERE email = %s ORDER BY id LIMIT 1", (email,))
    return Customer.from_row(row) if row else None


def get_customer(conn, customer_id):
    row = db.fetch_one(conn, "SELECT * FROM customers WHERE id = %s", (customer_id,))
    return Customer.from_row(row) if row else None


def invoices_for(conn, customer_id, *, with_lines=False):
    invoices = [
        Invoice.from_row(r)
        for r in db.fetch_all(conn, "SELECT * FROM invoices WHERE customer_id = %s ORDER BY issued_on, id",
                              (customer_id,))
    ]
    if with_lines and invoices:
        by_id = {inv.id: inv for inv in invoices}
        rows = db.fetch_all(conn, "SELECT * FROM invoice_lines WHERE invoice_id = ANY(%s) ORDER BY id",
                            (list(by_id),))
        for row in rows:
            by_id[row["invoice_id"]].lines.append(InvoiceLine.from_row(row))
    return invoices


def payments_for(conn, customer_id):
    return [
        Payment.from_row(r)
        for r in db.fetch_all(conn, "SELECT * FROM payments WHERE customer_id = %s ORDER BY received_on, id",
                              (customer_id,))
    ]


def all_invoices(conn, *, until=None):
    sql = "SELECT * FROM invoices"
    params = ()
    if until is not None:
        sql += " WHERE issued_on <= %s"
        params = (until,)
    return [Invoice.from_row(r) for r in db.fetch_all(conn, sql + " ORDER BY id", params)]


def all_payments(conn, *, until=None):
    sql = "SELECT * FROM payments"
    params = ()
    if until is not None:
        sql += " WHERE received_on <= %s"
        params = (until,)
    return [Payment.from_row(r) for r in db.fetch_all(conn, sql + " ORDER BY id", params)]


def next_id(conn, table):
    return int(db.fetch_value(conn, f"SELECT coalesce(max(id), 0) + 1 FROM {table}"))  # noqa: S608


def insert_customer(conn, name, email, country, currency):
    new_id = next_id(conn, "customers")
    db.execute(conn, "INSERT INTO customers (id, name, email, country, currency) VALUES (%s, %s, %s, %s, %s)",
               (new_id, name, email, country, currency))
    return new_id


def insert_invoice(conn, customer_id, number, issued_on, currency, total, status="open"):
    new_id = next_id(conn, "invoices")
    db.execute(conn, "INSERT INTO invoices (id, customer_id, number, issued_on, currency, total, status) "
                     "VALUES (%s, %s, %s, %s, %s, %s, %s)",
               (new_id, customer_id, number, issued_on, currency, total, status))
    return new_id


def insert_line(conn, invoice_id, description, quantity, unit_price, tax_rate):
    new_id = next_id(conn, "invoice_lines")
    db.execute(conn, "INSERT INTO invoice_lines (id, invoice_id, description, quantity, unit_price, tax_rate) "
                     "VALUES (%s, %s, %s, %s, %s, %s)",
               (new_id, invoice_id, description, quantity, unit_price, tax_rate))
    return new_id


def insert_payment(conn, customer_id, invoice_id, amount, currency, received_on, reference):
    new_id = next_id(conn, "payments")
    db.execute(conn, "INSERT INTO payments (id, customer_id, invoice_id, amount, currency, received_on, reference) "
                     "VALUES (%s, %s, %s, %s, %s, %s, %s)",
               (new_id, customer_id, invoice_id, amount, currency, received_on, reference))
    return new_id


def mark_paid(conn, invoice_id):
    db.execute(conn, "UPDATE invoices SET status = 'paid' WHERE id = %s", (invoice_id,))
