"""Unit tests of the report helpers that need no database."""

import os
import sys
import unittest
from datetime import date

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ledger import dunning, reports  # noqa: E402


class MonthBounds(unittest.TestCase):
    def test_mid_year(self):
        self.assertEqual(reports.month_bounds("2024-06"), (date(2024, 6, 1), date(2024, 7, 1)))

    def test_december(self):
        self.assertEqual(reports.month_bounds("2023-12"), (date(2023, 12, 1), date(2024, 1, 1)))

    def test_bad_month(self):
        with self.assertRaises(ValueError):
            reports.month_bounds("June")


class Summary(unittest.TestCase):
    def test_totals_per_currency(self):
        rows = [[1, "a@x", "EUR", 100, 50, 0, 30, 120], [2, "b@x", "EUR", 0, 10, -1, 0, 9],
                [3, "c@x", "USD", 5, 0, 0, 5, 0]]
        summary = reports.summarise("2024-06", rows)
        self.assertEqual(summary["accounts"], 3)
        self.assertEqual(summary["totals"]["EUR"]["closing_cents"], 129)
        self.assertEqual(summary["totals"]["USD"]["received_cents"], 5)


class Dunning(unittest.TestCase):
    def test_stages(self):
        self.assertIsNone(dunning.stage_for(3))
        self.assertEqual(dunning.stage_for(14), "reminder")
        self.assertEqual(dunning.stage_for(45), "second reminder")
        self.assertEqual(dunning.stage_for(90), "final notice")


if __name__ == "__main__":
    unittest.main()
