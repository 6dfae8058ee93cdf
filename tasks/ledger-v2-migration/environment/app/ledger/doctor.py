"""``ledger doctor``: a data-quality scan of the v1 tables.

Written in 2023 after the first audit; it knows what the auditors asked about then.
It only reads.
"""

from collections import Counter

from ledger import db, money

KNOWN_STATUSES = {"open", "paid", "void"}


class Finding:
    __slots__ = ("table", "row_id", "problem")

    def __init__(self, table, row_id, problem):
        self.table, self.row_id, self.problem = table, row_id, problem

    def __str__(self):
        return f"{self.table}#{self.row_id}: {self.problem}"


def _amount_problem(text):
    try:
        money.parse_amount(text)
    except ValueError:
        return f"amount {text!r} does not parse"
    return None


def scan_customers(conn):
    findings = []
    seen = Counter()
    for row in db.fetch_all(conn, "SELECT id, name, email, currency FROM customers ORDER BY id"):
        if not row["email"]:
            findings.append(Finding("customers", row["id"], "no e-mail address"))
        else:
            seen[row["email"]] += 1
        if row["currency"] and row["currency"] not in money.CURRENCIES:
            findings.append(Finding("customers", row["id"], f"currency {row['currency']!r}"))
    for email, count in seen.items():
        if count > 1:
            findings.append(Finding("customers", "-", f"{count} rows share {email!r}"))
    return findings


def scan_invoices(conn):
    findings = []
    for row in db.fetch_all(conn, "SELECT id, total, status, currency FROM invoices ORDER BY id"):
        problem = _amount_problem(row["total"])
        if problem:
            findings.append(Finding("invoices", row["id"], problem))
        if row["status"] not in KNOWN_STATUSES:
            findings.append(Finding("invoices", row["id"], f"status {row['status']!r}"))
    orphans = db.fetch_all(conn, "SELECT l.id FROM invoice_lines l LEFT JOIN invoices i ON i.id = l.invoice_id "
                                 "WHERE i.id IS NULL")
    findings.extend(Finding("invoice_lines", r["id"], "invoice does not exist") for r in orphans)
    return findings


def scan_payments(conn):
    findings = []
    for row in db.fetch_all(conn, "SELECT id, amount FROM payments ORDER BY id"):
        problem = _amount_problem(row["amount"])
        if problem:
            findings.append(Finding("payments", row["id"], problem))
    return findings


def run(conn, limit=50):
    """Print up to ``limit`` findings per table and a summary; returns the number found."""
    total = 0
    for scan in (scan_customers, scan_invoices, scan_payments):
        findings = scan(conn)
        total += len(findings)
        for finding in findings[:limit]:
            print(finding)
        if len(findings) > limit:
            print(f"... {len(findings) - limit} more from {scan.__name__}")
    print(f"{total} finding(s)")
    return total
