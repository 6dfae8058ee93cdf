import unittest

from fieldkit.clock import ClockError, clock_seconds, difference, format_clock, is_clock


class ClockTest(unittest.TestCase):
    def test_plain_and_fractional(self):
        self.assertEqual(clock_seconds("07:05:09"), 7 * 3600 + 5 * 60 + 9)
        self.assertAlmostEqual(clock_seconds("07:05:09.250"), 25509.25)

    def test_date_prefix_is_ignored(self):
        self.assertEqual(clock_seconds("2024-05-01T07:05:09"), 25509)
        self.assertEqual(clock_seconds("2024-05-01 07:05:09"), 25509)

    def test_rejects_garbage(self):
        for text in ("", "7:5", "07:61:00", "24:00:00", "ab:cd:ef", None):
            with self.subTest(text=text), self.assertRaises(ClockError):
                clock_seconds(text)
        self.assertFalse(is_clock("time"))

    def test_format_round_trip(self):
        for sec in (0, 59, 3600, 25509, 86399):
            self.assertEqual(clock_seconds(format_clock(sec)), sec)
        self.assertEqual(format_clock(25509.25, 2), "07:05:09.25")

    def test_difference_across_midnight(self):
        self.assertEqual(difference(10, 86390), 20)
        self.assertEqual(difference(86390, 10), -20)
        self.assertEqual(difference(500, 200), 300)


if __name__ == "__main__":
    unittest.main()
