"""Command line of the ledger (``python3 -m ledger COMMAND``).

  customers                    list customers
  balance EMAIL                what a customer owes, one line per account: 'EUR 1234.56'
  invoices EMAIL               a customer's invoices
  import-invoices FILE.csv     import an order-system export
  import-payments FILE.csv     import a bank statement
  report month-end --month YYYY-MM --out DIR
                               write the month-end deliverables (docs/month_end.md)
  report ageing [--as-of DATE] open invoices by age
  migrate [status|up]          schema migrations (ledger/migrations/)
  doctor                       data-quality scan of the v1 tables (schema v1 only, retired)
"""

import argparse
import sys
from datetime import date

from ledger import db, money, reports
from ledger.config import ConfigError
from ledger.importers import ImportError_
from ledger.migrate import runner
from ledger.v2rules import norm_email


def _customer(conn, email):
    """The surviving customer id for an address (any spelling of it), or exit."""
    found = db.fetch_value(conn, "SELECT id FROM customers WHERE email = %s", (norm_email(email),))
    if found is None:
        raise SystemExit(f"ledger: no customer with e-mail {email!r}")
    return found


def cmd_customers(conn, args):
    for r in db.fetch_all(conn, "SELECT * FROM customers ORDER BY id"):
        print(f"{r['id']:6d}  {r['name']} <{r['email'] or ''}>  {r['country'] or '--'}  {r['default_currency']}")
    return 0


def cmd_balance(conn, args):
    customer = _customer(conn, args.email)
    for currency, cents in sorted(reports.balances(conn, customer).items()):
        print(f"{currency} {money.format_cents(cents)}")
    return 0


def cmd_invoices(conn, args):
    customer = _customer(conn, args.email)
    for r in db.fetch_all(conn, "SELECT i.*, a.currency FROM invoices i JOIN accounts a ON a.id = i.account_id "
                                "WHERE a.customer_id = %s ORDER BY i.issued_on, i.id", (customer,)):
        print(f"{r['number']:18s} {r['issued_on']}  {r['status']:5s} {r['currency']:4s} "
              f"{money.format_cents(r['total_cents']):>14s}")
    return 0


def cmd_import_invoices(conn, args):
    from ledger.importers import invoices_csv  # noqa: PLC0415

    created, skipped = invoices_csv.import_file(conn, args.file, dry_run=args.dry_run)
    print(f"created {len(created)} invoice(s), skipped {len(skipped)} already imported")
    return 0


def cmd_import_payments(conn, args):
    from ledger.importers import bank  # noqa: PLC0415

    created = bank.import_statement(conn, args.file)
    print(f"recorded {len(created)} payment(s)")
    return 0


def cmd_report(conn, args):
    if args.report == "month-end":
        if not args.month or not args.out:
            raise SystemExit("ledger: report month-end needs --month YYYY-MM and --out DIR")
        rows = reports.write_month_end(conn, args.month, args.out)
        print(f"wrote {len(rows)} account row(s) to {args.out}")
        return 0
    as_of = date.fromisoformat(args.as_of) if args.as_of else date.today()
    for customer_id, buckets in sorted(reports.ageing(conn, as_of).items()):
        print(f"{customer_id:6d} " + " ".join(f"{money.format_cents(b):>12s}" for b in buckets))
    return 0


def cmd_migrate(conn, args):
    if args.action == "status":
        for version, applied in runner.status(conn):
            print(f"{version:32s} {'applied' if applied else 'pending'}")
        return 0
    applied = runner.migrate(conn)
    print(f"applied {len(applied)} migration(s): {', '.join(applied) or '-'}")
    return 0


def cmd_doctor(conn, args):
    from ledger import doctor  # noqa: PLC0415

    doctor.run(conn)
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="ledger", description="Northwind billing ledger")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("customers").set_defaults(func=cmd_customers)
    p = sub.add_parser("balance")
    p.add_argument("email")
    p.set_defaults(func=cmd_balance)
    p = sub.add_parser("invoices")
    p.add_argument("email")
    p.set_defaults(func=cmd_invoices)
    p = sub.add_parser("import-invoices")
    p.add_argument("file")
    p.add_argument("--dry-run", action="store_true")
    p.set_defaults(func=cmd_import_invoices)
    p = sub.add_parser("import-payments")
    p.add_argument("file")
    p.set_defaults(func=cmd_import_payments)
    p = sub.add_parser("report")
    p.add_argument("report", choices=["month-end", "ageing"])
    p.add_argument("--month")
    p.add_argument("--out")
    p.add_argument("--as-of")
    p.set_defaults(func=cmd_report)
    sub.add_parser("doctor").set_defaults(func=cmd_doctor)
    p = sub.add_parser("migrate")
    p.add_argument("action", nargs="?", default="up", choices=["up", "status"])
    p.set_defaults(func=cmd_migrate)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        conn = db.connect(autocommit=args.command == "migrate")
    except (ConfigError, db.DatabaseError) as exc:
        print(f"ledger: {exc}", file=sys.stderr)
        return 2
    try:
        return args.func(conn, args)
    except (db.DatabaseError, ImportError_, ValueError) as exc:
        print(f"ledger: {exc}", file=sys.stderr)
        return 1
    finally:
        conn.close()
