"""The bundled samples, as unit tests (the same comparisons as checks/public_checks.py)."""

import sys
import tempfile
import unittest
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(APP / "checks"))

import public_checks  # noqa: E402


class SampleTests(unittest.TestCase):
    def test_listings(self):
        for archive in sorted(public_checks.SAMPLES.glob("*.pak")):
            with self.subTest(archive=archive.name):
                self.assertIsNone(public_checks.check_listing(archive))

    def test_extraction(self):
        for archive in sorted(public_checks.SAMPLES.glob("*.pak")):
            with self.subTest(archive=archive.name), tempfile.TemporaryDirectory() as tmp:
                self.assertIsNone(public_checks.check_extract(archive, tmp))


if __name__ == "__main__":
    unittest.main()
