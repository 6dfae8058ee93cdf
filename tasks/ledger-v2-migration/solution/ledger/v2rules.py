"""The schema-v2 rules (docs/schema_v2.md) as pure functions over v1 rows."""

import re
from decimal import ROUND_HALF_UP, Decimal

SYMBOL_CODES = {"$": "USD", "\u20ac": "EUR", "\u00a3": "GBP"}
COUNTRY_FIX = {"UK": "GB"}


def norm_email(text):
    if text is None:
        return None
    text = text.strip()
    match = re.search(r"<([^>]*)>", text)
    if match:
        text = match.group(1)
    return text.strip().lower() or None


def norm_currency(text):
    if text is None:
        return None
    text = text.strip()
    if not text:
        return None
    return SYMBOL_CODES.get(text, text.upper())


def parse_cents(text):
    """Legacy amount text -> integer cents (raises ValueError when it is not an amount)."""
    raw = text.strip()
    negative = False
    if raw.startswith("(") and raw.endswith(")"):
        negative, raw = True, raw[1:-1].strip()
    raw = re.sub(r"^[A-Z]{3}\s*|\s*[A-Z]{3}$", "", raw)
    for symbol in SYMBOL_CODES:
        raw = raw.replace(symbol, "")
    raw = raw.strip()
    if raw.startswith("-"):
        negative, raw = not negative, raw[1:].strip()
    raw = raw.replace(" ", "")
    if "," in raw and "." in raw:
        decimal_mark = "," if raw.rfind(",") > raw.rfind(".") else "."
    elif "," in raw:
        decimal_mark = "," if re.search(r",\d{1,2}$", raw) else None
    else:
        decimal_mark = "."
    thousands = {",", "."} - {decimal_mark}
    for mark in thousands:
        raw = raw.replace(mark, "")
    if decimal_mark == ",":
        raw = raw.replace(",", ".")
    if not re.fullmatch(r"\d+(\.\d{1,2})?", raw):
        raise ValueError(f"not an amount: {text!r}")
    cents = int((Decimal(raw) * 100).to_integral_value())
    return -cents if negative else cents


def parse_rate(text):
    if text is None or not text.strip():
        return Decimal("0")
    raw = text.strip()
    value = Decimal(raw.rstrip("%").strip())
    if raw.endswith("%") or value > 1:
        value = value / 100
    return value.quantize(Decimal("0.0001"))


def half_up(value):
    return int(Decimal(value).to_integral_value(rounding=ROUND_HALF_UP))


def convert(tables):
    """The v2 content of the v1 ``tables`` ({name: [row tuples]}), keyed by natural keys."""
    rows = sorted(tables["customers"], key=lambda r: r[0])
    groups, survivor_of = {}, {}
    for cid, name, email, country, currency in rows:
        key = norm_email(email) or f"#{cid}"
        groups.setdefault(key, []).append((cid, name, email, country, currency))
    customers = {}
    for key, members in groups.items():
        first = members[0]
        currency = next((norm_currency(m[4]) for m in members if norm_currency(m[4])), "USD")
        country = next((m[3].strip().upper() for m in members if m[3] and m[3].strip()), None)
        country = COUNTRY_FIX.get(country, country)
        email = None if key.startswith("#") else key
        customers[first[0]] = (first[1].strip(), email, country, currency)
        for m in members:
            survivor_of[m[0]] = first[0]
    invoice_ids = {r[0] for r in tables["invoices"]}
    by_invoice = {}
    lines = {}
    for lid, iid, description, quantity, price, rate in tables["invoice_lines"]:
        q = Decimal(str(quantity))
        price_cents = parse_cents(price)
        r = parse_rate(rate)
        net = half_up(q * price_cents)
        tax = half_up(net * r)
        lines[lid] = (iid, description, q.quantize(Decimal("0.001")), price_cents, r, net, tax)
        by_invoice.setdefault(iid, []).append((net, tax))
    accounts = set()
    invoices, adjustments, currency_of = {}, {}, {}
    for iid, cid, number, issued, currency, total, status in tables["invoices"]:
        owner = survivor_of[cid]
        cur = norm_currency(currency) or customers[owner][3]
        legacy = parse_cents(total)
        parts = by_invoice.get(iid)
        if parts:
            net, tax = sum(p[0] for p in parts), sum(p[1] for p in parts)
        else:
            net, tax = legacy, 0
        invoices[iid] = (owner, cur, number.strip(), str(issued), status.strip().lower(), net, tax, net + tax, legacy)
        if legacy != net + tax:
            adjustments[iid] = legacy - (net + tax)
        accounts.add((owner, cur))
        currency_of[iid] = cur
    payments = {}
    for pid, cid, iid, amount, currency, received, reference in tables["payments"]:
        owner = survivor_of[cid]
        applied = iid if iid in invoice_ids else None
        cur = norm_currency(currency) or (currency_of[applied] if applied else customers[owner][3])
        payments[pid] = (owner, cur, applied, parse_cents(amount), str(received), reference)
        accounts.add((owner, cur))
    for cid, (_, _, _, currency) in customers.items():
        accounts.add((cid, currency))
    return {"customers": customers, "aliases": dict(survivor_of), "accounts": accounts,
            "invoices": invoices, "lines": lines, "payments": payments, "adjustments": adjustments}

