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
  doctor                       data-quality scan of the v1 tables
"""

import argparse
import sys
from datetime import date

from ledger import db, money, reports, repository
from ledger.config import ConfigError
from ledger.importers import ImportError_
from ledger.migrate import runner


def _customer(conn, email):
    customer = repository.find_customer(conn, email)
    if customer is None:
        raise SystemExit(f"ledger: no customer with e-mail {email!r}")
    return customer


def cmd_customers(conn, args):
    for customer in repository.list_customers(conn):
        print(f"{customer.id:6d}  {customer.display}  {customer.country or '--'}  {customer.currency or '--'}")
    return 0


def cmd_balance(conn, args):
    customer = _customer(conn, args.email)
    for currency, amount in sorted(reports.balances(conn, customer).items()):
        print(f"{currency} {money.format_cents(money.to_cents(amount))}")
    return 0


def cmd_invoices(conn, args):
    customer = _customer(conn, args.email)
    for invoice in repository.invoices_for(conn, customer.id):
        print(f"{invoice.number:18s} {invoice.issued_on}  {invoice.status:5s} {invoice.currency or '':4s} "
              f"{money.format_amount(invoice.total_amount):>14s}")
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
        print(f"{customer_id:6d} " + " ".join(f"{b:12.2f}" for b in buckets))
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
