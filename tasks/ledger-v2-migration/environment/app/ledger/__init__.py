"""ledger: the billing back office of Northwind Services (invoices, payments, month-end)."""

__version__ = "1.9.3"
