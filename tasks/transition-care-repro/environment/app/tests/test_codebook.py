import unittest

from tcr import codebook


class CodebookTest(unittest.TestCase):
    def test_wave1_disposition(self):
        self.assertEqual(codebook.disposition(1, "1"), "home")
        self.assertEqual(codebook.disposition(1, "3"), "died")

    def test_wave2_disposition(self):
        self.assertEqual(codebook.disposition(2, "TRANSFER"), "transfer")
        self.assertEqual(codebook.disposition(2, "??"), "unknown")

    def test_missing_codes(self):
        self.assertIsNone(codebook.number(1, ""))
        self.assertIsNone(codebook.number(1, "999"))
        self.assertEqual(codebook.number(1, "3"), 3.0)

    def test_enrolled(self):
        self.assertTrue(codebook.enrolled(1, "Y"))
        self.assertFalse(codebook.enrolled(1, "N"))
        self.assertTrue(codebook.enrolled(2, "1"))

    def test_sex_letters(self):
        self.assertEqual(codebook.sex("M"), "male")
        self.assertEqual(codebook.sex("F"), "female")


if __name__ == "__main__":
    unittest.main()
