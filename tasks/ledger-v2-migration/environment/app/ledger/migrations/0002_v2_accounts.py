"""Schema v2 (docs/schema_v2.md): customers deduplicated, accounts per currency, integer cents.

WIP (handed over half-done): tables are created, customers and invoices are copied. Still
missing: aliases, lines, payments, adjustments, the v1 tables' rename, and a look at the
production data (the copy below has only been tried on a developer's laptop database).
"""

from ledger import db, money


def up(conn):
    db.execute(conn, "ALTER TABLE customers RENAME TO legacy_customers")
    db.execute(conn, "ALTER TABLE invoices RENAME TO legacy_invoices")
    db.execute(conn, """
        CREATE TABLE customers (
            id integer PRIMARY KEY,
            name text NOT NULL,
            email text UNIQUE,
            country char(2),
            default_currency char(3) NOT NULL
        )""")
    db.execute(conn, """
        CREATE TABLE accounts (
            id serial PRIMARY KEY,
            customer_id integer NOT NULL REFERENCES customers(id),
            currency char(3) NOT NULL,
            UNIQUE (customer_id, currency)
        )""")
    db.execute(conn, """
        CREATE TABLE invoices (
            id integer PRIMARY KEY,
            account_id integer NOT NULL REFERENCES accounts(id),
            number text NOT NULL,
            issued_on date NOT NULL,
            status text NOT NULL,
            net_cents bigint NOT NULL,
            tax_cents bigint NOT NULL,
            total_cents bigint NOT NULL,
            legacy_total_cents bigint NOT NULL
        )""")
    for row in db.fetch_all(conn, "SELECT * FROM legacy_customers ORDER BY id"):
        db.execute(conn, "INSERT INTO customers (id, name, email, country, default_currency) "
                         "VALUES (%s, %s, %s, %s, %s)",
                   (row["id"], row["name"], row["email"], row["country"],
                    money.normalise_currency(row["currency"])))
        db.execute(conn, "INSERT INTO accounts (customer_id, currency) VALUES (%s, %s)",
                   (row["id"], money.normalise_currency(row["currency"])))
    for row in db.fetch_all(conn, "SELECT * FROM legacy_invoices ORDER BY id"):
        account = db.fetch_value(conn, "SELECT id FROM accounts WHERE customer_id = %s", (row["customer_id"],))
        cents = money.to_cents(money.parse_amount(row["total"]))
        db.execute(conn, "INSERT INTO invoices (id, account_id, number, issued_on, status, net_cents, tax_cents, "
                         "total_cents, legacy_total_cents) VALUES (%s, %s, %s, %s, %s, %s, 0, %s, %s)",
                   (row["id"], account, row["number"], row["issued_on"], row["status"], cents, cents, cents))
    # TODO: invoice_lines, payments, customer_aliases, adjustments
