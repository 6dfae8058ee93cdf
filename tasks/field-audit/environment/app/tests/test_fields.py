import unittest

from fieldkit.fields import parse_fields, problems, start_seconds, unit_count


class FieldsTest(unittest.TestCase):
    LINES = ["FIELD INSPECTION", "CASE K7PX2", "SITE 0412", "START 08:15:00", "UNITS 7", "INSP RW"]

    def test_parse(self):
        fields = parse_fields(self.LINES)
        self.assertEqual(fields, {"CASE": "K7PX2", "SITE": "0412", "START": "08:15:00", "UNITS": "7", "INSP": "RW"})
        self.assertEqual(problems(fields), [])

    def test_values_and_order(self):
        fields = parse_fields(list(reversed(self.LINES)))
        self.assertEqual(start_seconds(fields), 8 * 3600 + 15 * 60)
        self.assertEqual(unit_count(fields), 7)

    def test_unknown_lines_ignored(self):
        self.assertEqual(parse_fields(["", "NOTES NONE", "UNITS 3"]), {"UNITS": "3"})

    def test_problems_name_the_field(self):
        fields = parse_fields(["CASE K7", "SITE 41", "START 8H15", "UNITS X"])
        got = problems(fields)
        self.assertIn("missing INSP", got)
        self.assertTrue(any("CASE" in p for p in got))
        self.assertTrue(any("START" in p for p in got))
        self.assertIsNone(unit_count(fields))


if __name__ == "__main__":
    unittest.main()
