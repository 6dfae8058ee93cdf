#!/usr/bin/env python3
"""Smoke test of the v2 migration on the bundled sample (a few seconds).

Loads sample/sample_v1.sql into a scratch database next to the one LEDGER_DSN names,
runs `python3 -m ledger migrate` on it and compares the result with
sample/expected_v2.json. Prints PASS/FAIL for:

  migrate_sample   the migration completes on the sample, records its version, and every
                   table of docs/schema_v2.md exists with its columns
  sample_matches   the v2 tables hold exactly what sample/expected_v2.json says

It says nothing about production's data.
"""

import json
import os
import subprocess
import sys

import psycopg2
from psycopg2.extensions import make_dsn

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from v2state import differences, read_state  # noqa: E402

SCRATCH = "ledger_sample_check"
TABLES = {
    "customers": ("id", "name", "email", "country", "default_currency"),
    "customer_aliases": ("legacy_id", "customer_id"),
    "accounts": ("id", "customer_id", "currency"),
    "invoices": ("id", "account_id", "number", "issued_on", "status", "net_cents", "tax_cents", "total_cents",
                 "legacy_total_cents"),
    "invoice_lines": ("id", "invoice_id", "description", "quantity", "unit_price_cents", "tax_rate", "net_cents",
                      "tax_cents"),
    "payments": ("id", "account_id", "invoice_id", "amount_cents", "received_on", "reference"),
    "adjustments": ("id", "invoice_id", "account_id", "amount_cents", "reason", "effective_on"),
    "legacy_customers": ("id", "name", "email", "country", "currency"),
    "legacy_invoices": ("id", "customer_id", "number", "issued_on", "currency", "total", "status"),
    "legacy_invoice_lines": ("id", "invoice_id", "description", "quantity", "unit_price", "tax_rate"),
    "legacy_payments": ("id", "customer_id", "invoice_id", "amount", "currency", "received_on", "reference"),
}


def run_sql(dsn, *statements, autocommit=True):
    conn = psycopg2.connect(dsn)
    conn.autocommit = autocommit
    try:
        with conn.cursor() as cur:
            for statement in statements:
                cur.execute(statement)
        conn.commit()
    finally:
        conn.close()


def main():
    dsn = os.environ.get("LEDGER_DSN")
    if not dsn:
        print("LEDGER_DSN is not set", file=sys.stderr)
        return 2
    maintenance = make_dsn(dsn, dbname="postgres")
    run_sql(maintenance, f"DROP DATABASE IF EXISTS {SCRATCH}", f"CREATE DATABASE {SCRATCH}")
    scratch = make_dsn(dsn, dbname=SCRATCH)
    with open(os.path.join(APP, "sample", "sample_v1.sql"), encoding="utf-8") as handle:
        run_sql(scratch, handle.read(), autocommit=False)
    env = dict(os.environ, LEDGER_DSN=scratch)
    run = subprocess.run([sys.executable, "-m", "ledger", "migrate"], cwd=APP, env=env,
                         capture_output=True, text=True, timeout=300)
    conn = psycopg2.connect(scratch)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM schema_migrations WHERE version LIKE '0002%%'")
            recorded = cur.fetchone()[0] == 1
            shaped = True
            for table, columns in TABLES.items():
                cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,))
                missing = set(columns) - {r[0] for r in cur.fetchall()}
                if missing:
                    print(f"{table}: missing column(s) {', '.join(sorted(missing))}", file=sys.stderr)
                    shaped = False
        ok = run.returncode == 0 and recorded and shaped
        print(f"{'PASS' if ok else 'FAIL'} migrate_sample")
        if not ok:
            print(run.stderr[-2000:], file=sys.stderr)
        try:
            got = read_state(conn)
        except psycopg2.Error as exc:
            print(f"cannot read the v2 tables: {exc}".strip(), file=sys.stderr)
            got = {}
    finally:
        conn.close()
    with open(os.path.join(APP, "sample", "expected_v2.json"), encoding="utf-8") as handle:
        want = json.load(handle)
    diff = differences(got, want)
    print(f"{'PASS' if ok and not diff else 'FAIL'} sample_matches")
    for table, key in diff[:20]:
        print(f"  {table} {key}: got {got.get(table, {}).get(key)!r}, want {want[table].get(key)!r}",
              file=sys.stderr)
    run_sql(maintenance, f"DROP DATABASE IF EXISTS {SCRATCH}")
    return 0 if ok and not diff else 1


if __name__ == "__main__":
    sys.exit(main())
