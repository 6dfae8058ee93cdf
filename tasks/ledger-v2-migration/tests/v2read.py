"""Read a schema-v2 database into a canonical, comparable form (the verifier's own copy of checks/v2state.py)."""

from decimal import Decimal

QUERIES = {
    "customers": "SELECT id, name, email, country, default_currency FROM customers",
    "aliases": "SELECT legacy_id, customer_id FROM customer_aliases",
    "accounts": "SELECT customer_id, currency, 1 FROM accounts",
    "invoices": "SELECT i.id, a.customer_id, a.currency, i.number, i.issued_on::text, i.status, i.net_cents,"
                " i.tax_cents, i.total_cents, i.legacy_total_cents FROM invoices i JOIN accounts a ON a.id = i.account_id",
    "lines": "SELECT id, invoice_id, description, quantity, unit_price_cents, tax_rate, net_cents, tax_cents"
             " FROM invoice_lines",
    "payments": "SELECT p.id, a.customer_id, a.currency, p.invoice_id, p.amount_cents, p.received_on::text,"
                " p.reference FROM payments p JOIN accounts a ON a.id = p.account_id",
    "adjustments": "SELECT j.invoice_id, j.amount_cents, j.reason, a.customer_id, a.currency, j.effective_on::text"
                   " FROM adjustments j JOIN accounts a ON a.id = j.account_id",
}


def _cell(value):
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, str):
        return value.rstrip() if len(value) <= 3 else value
    return value


def read_state(conn):
    """{table: {key: [values]}}; keys are strings (the first column, or customer:currency)."""
    state = {}
    with conn.cursor() as cur:
        for table, sql in QUERIES.items():
            cur.execute(sql)
            rows = {}
            for row in cur.fetchall():
                cells = [_cell(v) for v in row]
                key = f"{cells[0]}:{cells[1]}" if table == "accounts" else str(cells[0])
                if table == "accounts":
                    rows[key] = [1]
                elif table == "adjustments":
                    rows.setdefault(key, []).append(cells[1:])
                else:
                    rows[key] = cells[1:]
            state[table] = rows
    return state


def differences(got, want):
    """[(table, key)] of rows that are missing, extra or different."""
    out = []
    for table, rows in want.items():
        have = got.get(table, {})
        for key in sorted(set(rows) | set(have)):
            if rows.get(key) != have.get(key):
                out.append((table, key))
    return out
