"""Unit tests of the feed parsers and helpers: ``cd /app && python3 -m unittest discover unit_tests``.

They need no Redis and no running service.
"""

import unittest

from gridtel import parsers
from gridtel.model import hour_floor, site_of
from gridtel.timeutil import TimestampError, format_hour, parse_hour, parse_timestamp
from gridtel.units import energy_kwh, power_kw, split_temperature


class TimeTests(unittest.TestCase):
    def test_utc_stamp(self):
        self.assertEqual(parse_timestamp("2026-03-29T01:00:00Z"), 1774746000.0)

    def test_hour_round_trip(self):
        self.assertEqual(format_hour(parse_hour("2026-03-29T01:00:00Z")), "2026-03-29T01:00:00Z")

    def test_hour_must_be_on_the_hour(self):
        with self.assertRaises(TimestampError):
            parse_hour("2026-03-29T01:30:00Z")

    def test_garbage(self):
        with self.assertRaises(TimestampError):
            parse_timestamp("yesterday")

    def test_hour_floor(self):
        self.assertEqual(hour_floor(7199.9), 3600)


class UnitTests(unittest.TestCase):
    def test_watts(self):
        self.assertAlmostEqual(power_kw(1500, "W"), 1.5)

    def test_kilowatts(self):
        self.assertAlmostEqual(power_kw("2.5", "kW"), 2.5)

    def test_energy(self):
        self.assertAlmostEqual(energy_kwh(2, "MWh"), 2000.0)

    def test_temperature_split(self):
        self.assertEqual(split_temperature("7.5C"), (7.5, "C"))
        self.assertEqual(split_temperature("7.5"), (7.5, "C"))


class ParserTests(unittest.TestCase):
    def test_meter_batch(self):
        result = parsers.parse("meter", "meter_id,timestamp,register_kwh\nNORTH.M1,2026-03-29T01:00:00Z,12.3\n")
        self.assertEqual(len(result.records), 1)
        self.assertEqual(result.records[0].site, "NORTH")
        self.assertEqual(result.records[0].register_kwh, 12.3)

    def test_meter_bad_row_is_rejected_not_fatal(self):
        text = "meter_id,timestamp,register_kwh\nNORTH.M1,nope,1\nNORTH.M1,2026-03-29T01:00:00Z,2\n"
        result = parsers.parse("meter", text)
        self.assertEqual(len(result.records), 1)
        self.assertEqual(len(result.rejected), 1)

    def test_meter_header_required(self):
        with self.assertRaises(parsers.FeedError):
            parsers.parse("meter", "a,b,c\n")

    def test_inverter_batch_in_sync(self):
        text = '{"gateway": "gw", "clock_offset_s": 0}\n{"inv": "NORTH.PV1", "t": 100.0, "p": 500, "unit": "W"}\n'
        result = parsers.parse("inverter", text)
        sample = result.records[0]
        self.assertEqual((sample.t, sample.device_t), (100.0, 100.0))
        self.assertAlmostEqual(sample.kw, 0.5)

    def test_inverter_header_required(self):
        with self.assertRaises(parsers.FeedError):
            parsers.parse("inverter", '{"inv": "NORTH.PV1", "t": 1, "p": 1}\n')

    def test_weather_line(self):
        result = parsers.parse("weather", "station=NORTH ts=2026-03-29T01:00:00Z temp=4.5C ghi=0\n")
        self.assertEqual(result.records[0].temp_c, 4.5)

    def test_unknown_feed(self):
        with self.assertRaises(parsers.FeedError):
            parsers.parse("radar", "")

    def test_site_of(self):
        self.assertEqual(site_of("EAST.PV2"), "EAST")


if __name__ == "__main__":
    unittest.main()
