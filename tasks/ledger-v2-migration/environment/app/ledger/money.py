"""Money helpers of the v1 app.

v1 stores amounts as text exactly as they were typed or imported, and computes with floats.
Schema v2 stores integer cents (see docs/schema_v2.md); these helpers predate it.
"""

CURRENCIES = ("USD", "EUR", "GBP")


def parse_amount(text):
    """Amount text -> float (v1 behaviour: strips '$' and thousands commas)."""
    if text is None:
        return 0.0
    cleaned = str(text).strip().replace("$", "").replace(",", "")
    if not cleaned:
        return 0.0
    return float(cleaned)


def to_cents(value):
    """A float amount -> integer cents (v1 behaviour: Python's round)."""
    return int(round(value * 100))


def format_cents(cents):
    """Integer cents -> '1234.56' (with a leading '-' for negatives)."""
    sign = "-" if cents < 0 else ""
    cents = abs(int(cents))
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def format_amount(value):
    """A float amount -> '1,234.56' as the v1 invoices print it."""
    return f"{value:,.2f}"


def parse_rate(text):
    """Tax rate text -> float fraction (v1 behaviour: the text is a fraction)."""
    if text in (None, ""):
        return 0.0
    return float(text)


def invoice_total(lines):
    """v1 total of (quantity, unit price, tax rate) lines, rounded once at the end."""
    total = 0.0
    for quantity, price, rate in lines:
        total += float(quantity) * float(price) * (1.0 + float(rate))
    return round(total, 2)


def normalise_currency(text, default="USD"):
    """v1 behaviour: upper-case, or the default when empty."""
    if not text:
        return default
    return str(text).strip().upper()
