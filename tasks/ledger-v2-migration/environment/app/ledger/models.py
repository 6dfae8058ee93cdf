"""Row types of the v1 schema (see ledger/migrations/0001_initial.sql)."""

from dataclasses import dataclass, field
from datetime import date

from ledger import money


@dataclass
class Customer:
    id: int
    name: str
    email: str | None
    country: str | None
    currency: str | None

    @classmethod
    def from_row(cls, row):
        return cls(row["id"], row["name"], row.get("email"), row.get("country"), row.get("currency"))

    @property
    def display(self):
        return f"{self.name.strip()} <{(self.email or '').strip()}>"


@dataclass
class InvoiceLine:
    id: int
    invoice_id: int
    description: str
    quantity: float
    unit_price: str
    tax_rate: str | None

    @classmethod
    def from_row(cls, row):
        return cls(row["id"], row["invoice_id"], row["description"], float(row["quantity"]),
                   row["unit_price"], row.get("tax_rate"))

    @property
    def amount(self):
        return self.quantity * money.parse_amount(self.unit_price)


@dataclass
class Invoice:
    id: int
    customer_id: int
    number: str
    issued_on: date
    currency: str | None
    total: str
    status: str
    lines: list = field(default_factory=list)

    @classmethod
    def from_row(cls, row):
        return cls(row["id"], row["customer_id"], row["number"], row["issued_on"], row.get("currency"),
                   row["total"], row["status"])

    @property
    def total_amount(self):
        return money.parse_amount(self.total)

    @property
    def is_void(self):
        return self.status == "void"

    def recompute_total(self):
        return money.invoice_total(
            (line.quantity, money.parse_amount(line.unit_price), money.parse_rate(line.tax_rate))
            for line in self.lines
        )


@dataclass
class Payment:
    id: int
    customer_id: int
    invoice_id: int | None
    amount: str
    currency: str | None
    received_on: date
    reference: str | None

    @classmethod
    def from_row(cls, row):
        return cls(row["id"], row["customer_id"], row.get("invoice_id"), row["amount"], row.get("currency"),
                   row["received_on"], row.get("reference"))

    @property
    def amount_value(self):
        return money.parse_amount(self.amount)
