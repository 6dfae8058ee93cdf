"""Unit tests of the v1 money helpers (python3 -m unittest discover -s tests)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ledger import money  # noqa: E402


class ParseAmount(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(money.parse_amount("12.50"), 12.5)

    def test_thousands_and_dollar(self):
        self.assertEqual(money.parse_amount("$1,234.50"), 1234.5)

    def test_blank_is_zero(self):
        self.assertEqual(money.parse_amount("  "), 0.0)
        self.assertEqual(money.parse_amount(None), 0.0)


class Cents(unittest.TestCase):
    def test_format(self):
        self.assertEqual(money.format_cents(123456), "1234.56")
        self.assertEqual(money.format_cents(-5), "-0.05")

    def test_to_cents(self):
        self.assertEqual(money.to_cents(12.34), 1234)


class Totals(unittest.TestCase):
    def test_invoice_total(self):
        self.assertEqual(money.invoice_total([(2, 10.0, 0.2), (1, 5.0, 0.0)]), 29.0)

    def test_rate(self):
        self.assertEqual(money.parse_rate("0.2"), 0.2)
        self.assertEqual(money.parse_rate(""), 0.0)


if __name__ == "__main__":
    unittest.main()
