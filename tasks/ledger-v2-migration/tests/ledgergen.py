"""Seeded generator of a legacy (schema v1) billing database with messy production data.

``dataset(seed, size)`` returns the v1 rows and, per hidden category, the ids of the rows
that exercise it. ``to_sql(data)`` renders them as SQL that loads into an empty database.
The production database (the agent's live one) is ``dataset(PRODUCTION_SEED, "production")``;
the verifier builds fresh databases from the episode seed. Stdlib only, deterministic.
"""

import random
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Decimal

PRODUCTION_SEED = 20240630
SIZES = {"production": (260, 900), "hidden": (90, 260), "sample": (8, 14)}
SYMBOLS = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3"}
FIRST = ["Ada", "Bram", "Chen", "Dara", "Edo", "Fatma", "Gus", "Hana", "Ivo", "Jun", "Kemal", "Lena",
         "Mira", "Nils", "Oona", "Pia", "Quin", "Rosa", "Sami", "Tove", "Udo", "Vera", "Wim", "Yara"]
LAST = ["Lind", "Okafor", "Weber", "Rossi", "Novak", "Haddad", "Moreau", "Sato", "Berg", "Costa",
        "Ivanova", "Keller", "Silva", "Nagy", "Olsen", "Park", "Quist", "Ramos", "Stein", "Tamm"]
ITEMS = ["Consulting hours", "Support plan", "Hosting (monthly)", "Licence seat", "Training day",
         "Travel expenses", "Data migration", "Hardware rental", "Audit fee", "Setup fee"]
COUNTRIES = {"USD": ["US", "us", "US "], "EUR": ["DE", "fr", "NL", "ES "], "GBP": ["GB", "gb", "UK"]}
RATES = {"USD": ["0", "0.0725", "7.25%", "0.08875"], "EUR": ["0.19", "19%", "0.2", "20", "0.07", "10%"],
         "GBP": ["0.2", "20%", "0.05", "5"]}


def _clean_amount(cents):
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def messy_amount(rng, cents, currency, allow_negative_forms=False, plain=False):
    """A text rendering of ``cents`` the legacy app or an import could have stored
    (``plain``: only the two forms the bundled sample shows)."""
    neg = cents < 0
    whole, frac = divmod(abs(cents), 100)
    grouped = f"{whole:,}"
    forms = [
        lambda: f"{grouped}.{frac:02d}",
        lambda: f" {whole}.{frac:02d} ",
        lambda: f"{whole}.{frac:02d}".rstrip("0").rstrip(".") if frac % 10 == 0 else f"{whole}.{frac:02d}",
        lambda: f"{SYMBOLS[currency]}{grouped}.{frac:02d}",
        lambda: f"{whole}.{frac:02d} {currency}",
        lambda: f"{grouped.replace(',', '.')},{frac:02d}",
        lambda: f"{grouped.replace(',', ' ')},{frac:02d}",
        lambda: f"{currency} {grouped}.{frac:02d}",
    ]
    if plain:
        forms = forms[:2]
    elif neg:
        forms = [forms[i] for i in (0, 1, 2, 5, 6)]
    text = rng.choice(forms)()
    if neg:
        text = f"({text.strip()})" if allow_negative_forms and rng.random() < 0.5 else "-" + text.strip()
    return text


def messy_currency(rng, code, plain=False):
    if plain:
        return code.lower()
    return rng.choice([code.lower(), f" {code}", f"{code.lower()} ", SYMBOLS[code], None, ""])


def messy_email(rng, name, email, plain=False):
    if plain:
        return email.upper()
    return rng.choice([email.upper(), f"  {email}", f"{email} ", f"{name} <{email}>",
                       email.capitalize(), f"<{email}>"])


def messy_status(rng, status, plain=False):
    if plain:
        return status.upper()
    return rng.choice([status.upper(), f" {status}", status.capitalize() + " ", status.title()])


def legacy_total_cents(lines):
    """The v1 app's total: float arithmetic over the whole invoice, rounded half-even."""
    total = 0.0
    for quantity, price_cents, rate in lines:
        total += float(quantity) * (price_cents / 100.0) * (1.0 + float(rate))
    return int(Decimal(repr(total)).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN) * 100)


def rate_value(text):
    if text is None or not text.strip():
        return Decimal(0)
    raw = text.strip()
    value = Decimal(raw.rstrip("%"))
    return value / 100 if raw.endswith("%") or value > 1 else value


def dataset(seed, size="hidden"):
    """(tables, tags): tables maps a v1 table to its rows (tuples in column order);
    tags maps a category to the set of keys ("customer:3", "invoice:7", "payment:9")."""
    rng = random.Random(f"ledger-{seed}-{size}")
    plain = size == "sample"
    n_customers, n_invoices = SIZES[size]
    tags = {k: set() for k in ("amounts", "currency", "customer_merge", "tax_rounding",
                               "legacy_void", "unapplied")}
    customers, invoices, lines, payments = [], [], [], []
    people = []  # (canonical id, currency, name, email)
    cid = 0
    for i in range(n_customers):
        cid += 1
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        email = f"{name.lower().replace(' ', '.')}{i}@{rng.choice(['acme.io', 'mail.example', 'corp.test'])}"
        currency = rng.choice(["USD", "USD", "EUR", "EUR", "GBP"])
        stored_currency = currency if rng.random() < 0.7 else messy_currency(rng, currency, plain)
        if stored_currency in (None, ""):
            currency = "USD"  # no default recorded: the documented fallback
        stored_email = email if rng.random() < 0.8 else messy_email(rng, name, email, plain)
        customers.append((cid, name if rng.random() < 0.9 else f" {name} ", stored_email,
                          rng.choice(COUNTRIES[currency]), stored_currency))
        people.append([cid, currency, name, email])
        if rng.random() < 0.18:  # entered again later (a second sign-up, an import)
            cid += 1
            dup_currency = stored_currency if plain else rng.choice([stored_currency, None, currency.lower()])
            customers.append((cid, name, messy_email(rng, name, email, plain),
                              COUNTRIES[currency][0] if plain else rng.choice(COUNTRIES[currency] + [None]),
                              dup_currency))
            people.append([cid, currency, name, email, "dup"])
            tags["customer_merge"].add(f"customer:{cid}")
    start = date(2024, 1, 1)
    iid, lid, pid = 1000, 5000, 9000
    for _ in range(n_invoices):
        iid += 1 if rng.random() < 0.93 else 2  # deleted invoices leave gaps
        person = rng.choice(people)
        pcid, currency = person[0], person[1]
        foreign = rng.random() < 0.08 and size != "sample"
        if foreign:  # billed in another currency than the customer's default
            currency = rng.choice([c for c in SYMBOLS if c != currency])
        issued = start + timedelta(days=rng.randrange(0, 182))
        status = rng.choice(["open", "paid", "paid", "paid", "void"] if size != "sample" else ["open", "paid"])
        key = f"invoice:{iid}"
        if len(person) > 4:
            tags["customer_merge"].add(key)
        inv_lines = []
        kind = rng.random()
        if kind < 0.07 and size != "sample":
            tags["legacy_void"].add(key)  # a legacy import: a total, no lines
            legacy = rng.randrange(1000, 400000)
        else:
            for _ in range(rng.randint(1, 4)):
                lid += 1
                rate_text = rng.choice(RATES[currency] + ([None, ""] if rng.random() < 0.1 and not plain else []))
                rate = rate_value(rate_text)
                if rng.random() < 0.35:  # half a cent of tax: rounding matters
                    quantity = Decimal(rng.choice([1, 3, 5]))
                    net_target = rng.randrange(100, 9000) * 10 + 5
                    price = net_target // int(quantity) if net_target % int(quantity) == 0 else net_target
                    quantity = quantity if net_target % int(quantity) == 0 else Decimal(1)
                    rate_text, rate = ("0.1", Decimal("0.1")) if rng.random() < 0.5 else ("10%", Decimal("0.1"))
                    tags["tax_rounding"].add(key)
                else:
                    quantity = Decimal(rng.choice(["1", "2", "1.5", "0.25", "3", "12", "7.5"]))
                    price = rng.randrange(500, 250000)
                    if quantity != quantity.to_integral_value() and (quantity * price) % 1 != 0:
                        tags["tax_rounding"].add(key)
                price_text = _clean_amount(price) if rng.random() < 0.75 else messy_amount(rng, price, currency, plain=plain)
                if price_text != _clean_amount(price):
                    tags["amounts"].add(key)
                lines.append((lid, iid, rng.choice(ITEMS), str(quantity), price_text, rate_text))
                inv_lines.append((quantity, price, rate))
            legacy = legacy_total_cents(inv_lines)
        total_text = _clean_amount(legacy) if rng.random() < 0.7 else messy_amount(rng, legacy, currency, plain=plain)
        if total_text != _clean_amount(legacy):
            tags["amounts"].add(key)
        cur_text = currency if rng.random() < 0.75 else messy_currency(rng, currency, plain)
        if cur_text != currency or foreign:
            tags["currency"].add(key)
        if status == "void" or rng.random() < 0.2:
            stored_status = messy_status(rng, status, plain) if rng.random() < 0.6 else status
            if status == "void":
                tags["legacy_void"].add(key)
        else:
            stored_status = status
        invoices.append((iid, pcid, f"INV-{issued:%y%m}-{iid}", issued.isoformat(), cur_text,
                         total_text, stored_status))
        if status == "paid" or (status == "open" and rng.random() < 0.3):
            pid += 1
            amount = legacy if status == "paid" else legacy // rng.choice([2, 3, 4])
            if rng.random() < 0.12:
                amount -= rng.randrange(1, 500)
            if foreign and rng.random() < 0.7:
                pcur_forced = None
            else:
                pcur_forced = False  # short-paid: bank fees
            paid = issued + timedelta(days=rng.randrange(0, 45))
            text = _clean_amount(amount) if rng.random() < 0.7 else messy_amount(rng, amount, currency, plain=plain)
            pkey = f"payment:{pid}"
            if text != _clean_amount(amount):
                tags["amounts"].add(pkey)
            pcur = currency if rng.random() < 0.8 or plain else rng.choice([None, "", currency.lower()])
            if pcur_forced is None:
                pcur = None  # the bank file had no currency: the invoice's applies
            if pcur != currency or foreign:
                tags["currency"].add(pkey)
            payer = pcid
            if len(person) > 4 or rng.random() < 0.1:
                tags["customer_merge"].add(pkey)
            payments.append((pid, payer, iid, text, pcur, paid.isoformat(), f"BANK-{rng.randrange(10**7):07d}"))
    for _ in range(max(4, n_invoices // 25)):  # unapplied money: no invoice, or a deleted one
        pid += 1
        person = rng.choice(people)
        currency = person[1]
        amount = rng.randrange(1000, 60000)
        refund = rng.random() < 0.3
        if refund:
            amount = -amount
        gone = rng.random() < 0.5 and not plain
        target = None if not gone else iid + rng.randrange(1, 50) * 1000  # never existed / deleted
        text = messy_amount(rng, amount, currency, allow_negative_forms=not plain, plain=plain) if (refund or rng.random() < 0.5) \
            else _clean_amount(amount)
        pcur = currency if rng.random() < 0.6 or plain else rng.choice([None, currency.lower() + " "])
        paid = start + timedelta(days=rng.randrange(0, 182))
        payments.append((pid, person[0], target, text, pcur, paid.isoformat(), f"BANK-{rng.randrange(10**7):07d}"))
        tags["unapplied"].add(f"payment:{pid}")
        if text != _clean_amount(amount):
            tags["amounts"].add(f"payment:{pid}")
    tables = {"customers": customers, "invoices": invoices, "invoice_lines": lines, "payments": payments}
    return tables, tags


V1_DDL = """
CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, email text, country text, currency text);
CREATE TABLE invoices (id integer PRIMARY KEY, customer_id integer NOT NULL, number text NOT NULL,
  issued_on date NOT NULL, currency text, total text NOT NULL, status text NOT NULL DEFAULT 'open');
CREATE TABLE invoice_lines (id integer PRIMARY KEY, invoice_id integer NOT NULL, description text NOT NULL,
  quantity numeric(10,3) NOT NULL, unit_price text NOT NULL, tax_rate text);
CREATE TABLE payments (id integer PRIMARY KEY, customer_id integer NOT NULL, invoice_id integer,
  amount text NOT NULL, currency text, received_on date NOT NULL, reference text);
INSERT INTO schema_migrations (version, applied_at) VALUES ('0001_initial', '2023-03-01 09:00:00+00');
"""
COLUMNS = {
    "customers": ("id", "name", "email", "country", "currency"),
    "invoices": ("id", "customer_id", "number", "issued_on", "currency", "total", "status"),
    "invoice_lines": ("id", "invoice_id", "description", "quantity", "unit_price", "tax_rate"),
    "payments": ("id", "customer_id", "invoice_id", "amount", "currency", "received_on", "reference"),
}


def _literal(value):
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def to_sql(tables):
    """SQL that creates the v1 schema and loads ``tables`` (one INSERT per 200 rows)."""
    out = [V1_DDL]
    for table, columns in COLUMNS.items():
        rows = tables[table]
        for start in range(0, len(rows), 200):
            values = ",\n".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows[start:start + 200])
            out.append(f"INSERT INTO {table} ({', '.join(columns)}) VALUES\n{values};")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys

    which = sys.argv[1] if len(sys.argv) > 1 else "production"
    seed = PRODUCTION_SEED if which == "production" else int(sys.argv[2]) if len(sys.argv) > 2 else 1
    sys.stdout.write(to_sql(dataset(seed, which)[0]))
