import datetime as dt
import unittest

from tcr import dates


class DatesTest(unittest.TestCase):
    def test_iso(self):
        self.assertEqual(dates.parse_iso("2020-02-29"), dt.date(2020, 2, 29))

    def test_wave2_format(self):
        self.assertEqual(dates.parse_wave2("03/04/2021"), dt.date(2021, 4, 3))

    def test_completed_years_before_birthday(self):
        self.assertEqual(dates.completed_years(dt.date(2000, 6, 15), dt.date(2018, 6, 14)), 17)

    def test_completed_years_on_birthday(self):
        self.assertEqual(dates.completed_years(dt.date(2000, 6, 15), dt.date(2018, 6, 15)), 18)

    def test_days_between(self):
        self.assertEqual(dates.days_between(dt.date(2020, 1, 1), dt.date(2020, 1, 31)), 30)


if __name__ == "__main__":
    unittest.main()
