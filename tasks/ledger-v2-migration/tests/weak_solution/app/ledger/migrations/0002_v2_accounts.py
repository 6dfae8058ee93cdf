"""Schema v2 (docs/schema_v2.md): customers deduplicated, accounts per currency, integer cents.

Runs inside the runner's transaction: either all of it happens or none of it does.
"""

from psycopg2.extras import execute_values

from ledger import db
from ledger.v2rules import convert

LEGACY = ("customers", "invoices", "invoice_lines", "payments")
COLUMNS = {
    "customers": "id, name, email, country, currency",
    "invoices": "id, customer_id, number, issued_on::text, currency, total, status",
    "invoice_lines": "id, invoice_id, description, quantity::text, unit_price, tax_rate",
    "payments": "id, customer_id, invoice_id, amount, currency, received_on::text, reference",
}
DDL = """
CREATE TABLE customers (
  id integer PRIMARY KEY, name text NOT NULL, email text UNIQUE, country char(2),
  default_currency char(3) NOT NULL);
CREATE TABLE customer_aliases (
  legacy_id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id));
CREATE TABLE accounts (
  id serial PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id),
  currency char(3) NOT NULL, UNIQUE (customer_id, currency));
CREATE TABLE invoices (
  id integer PRIMARY KEY, account_id integer NOT NULL REFERENCES accounts(id), number text NOT NULL,
  issued_on date NOT NULL, status text NOT NULL CHECK (status IN ('open', 'paid', 'void')),
  net_cents bigint NOT NULL, tax_cents bigint NOT NULL, total_cents bigint NOT NULL,
  legacy_total_cents bigint NOT NULL);
CREATE TABLE invoice_lines (
  id integer PRIMARY KEY, invoice_id integer NOT NULL REFERENCES invoices(id), description text NOT NULL,
  quantity numeric(10,3) NOT NULL, unit_price_cents bigint NOT NULL, tax_rate numeric(6,4) NOT NULL,
  net_cents bigint NOT NULL, tax_cents bigint NOT NULL);
CREATE TABLE payments (
  id integer PRIMARY KEY, account_id integer NOT NULL REFERENCES accounts(id),
  invoice_id integer REFERENCES invoices(id), amount_cents bigint NOT NULL, received_on date NOT NULL,
  reference text);
CREATE TABLE adjustments (
  id serial PRIMARY KEY, invoice_id integer NOT NULL REFERENCES invoices(id),
  account_id integer NOT NULL REFERENCES accounts(id), amount_cents bigint NOT NULL, reason text NOT NULL,
  effective_on date NOT NULL);
"""


def up(conn):
    tables = {}
    with conn.cursor() as cur:
        for table in LEGACY:
            cur.execute(f"SELECT {COLUMNS[table]} FROM {table} ORDER BY id")  # noqa: S608
            tables[table] = cur.fetchall()
        state = convert(tables)
        for table in LEGACY:
            cur.execute(f"ALTER TABLE {table} RENAME TO legacy_{table}")
        cur.execute(DDL)
        execute_values(cur, "INSERT INTO customers (id, name, email, country, default_currency) VALUES %s",
                       [(k, *v) for k, v in sorted(state["customers"].items())])
        execute_values(cur, "INSERT INTO customer_aliases (legacy_id, customer_id) VALUES %s",
                       sorted(state["aliases"].items()))
        rows = execute_values(cur, "INSERT INTO accounts (customer_id, currency) VALUES %s RETURNING id, customer_id, currency",
                              sorted(state["accounts"]), fetch=True)
        account = {(owner, cur_): aid for aid, owner, cur_ in rows}
        invoices = state["invoices"]
        execute_values(cur, "INSERT INTO invoices (id, account_id, number, issued_on, status, net_cents, tax_cents,"
                            " total_cents, legacy_total_cents) VALUES %s",
                       [(k, account[(v[0], v[1])], *v[2:]) for k, v in sorted(invoices.items())])
        execute_values(cur, "INSERT INTO invoice_lines (id, invoice_id, description, quantity, unit_price_cents,"
                            " tax_rate, net_cents, tax_cents) VALUES %s",
                       [(k, *v) for k, v in sorted(state["lines"].items())])
        execute_values(cur, "INSERT INTO payments (id, account_id, invoice_id, amount_cents, received_on, reference)"
                            " VALUES %s",
                       [(k, account[(v[0], v[1])], *v[2:]) for k, v in sorted(state["payments"].items())])
        execute_values(cur, "INSERT INTO adjustments (invoice_id, account_id, amount_cents, reason, effective_on)"
                            " VALUES %s",
                       [(iid, account[invoices[iid][:2]], amount, "tax-rounding", invoices[iid][3])
                        for iid, amount in sorted(state["adjustments"].items())])
    db.execute(conn, "SELECT 1")
