"""Hand-built archives for the reader (as the port's authors understood the formats).

Run: cd /app && python3 -m unittest discover -s tests
Several expectations here were written from the notes, not from the legacy
tool, so a failure may mean the test is wrong rather than the reader.
"""

import struct
import sys
import unittest
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(APP))

from pypak import reader, writer  # noqa: E402
from pypak.checksums import crc32  # noqa: E402
from pypak.errors import PakError  # noqa: E402


def parse(data):
    warnings = []
    return reader.parse(data, warnings.append), warnings


def v1_archive(entries):
    out = b"PAK\x01" + struct.pack("<H", len(entries))
    for name, method, data in entries:
        out += bytes((len(name),)) + name + bytes((method,))
        out += struct.pack("<IIH", len(data), len(data), crc32(data) & 0xFFFF) + data
    return out


class FormatOneTests(unittest.TestCase):
    def test_empty_archive(self):
        archive, warnings = parse(b"PAK\x01\x00\x00")
        self.assertEqual(archive.version, 1)
        self.assertEqual(archive.entries, [])
        self.assertEqual(warnings, [])

    def test_two_stored_entries(self):
        archive, _ = parse(v1_archive([(b"a.txt", 0, b"alpha"), (b"b.txt", 0, b"beta")]))
        self.assertEqual([e.name for e in archive.entries], [b"a.txt", b"b.txt"])
        self.assertEqual([e.size for e in archive.entries], [5, 4])
        self.assertEqual(archive.entries[0].payload, b"alpha")

    def test_unknown_method_is_fatal(self):
        with self.assertRaises(PakError) as caught:
            parse(v1_archive([(b"a.txt", 7, b"alpha")]))
        self.assertEqual(caught.exception.code, 2)

    def test_truncated_payload_is_fatal(self):
        with self.assertRaises(PakError):
            parse(v1_archive([(b"a.txt", 0, b"alpha")])[:-2])


class MagicTests(unittest.TestCase):
    def test_not_an_archive(self):
        for data in (b"", b"PA", b"ZIP\x01\x00\x00", b"\x00" * 10):
            with self.subTest(data=data), self.assertRaises(PakError) as caught:
                parse(data)
            self.assertEqual(caught.exception.code, 2)

    def test_future_format(self):
        with self.assertRaises(PakError):
            parse(b"PAK\x07\x00\x00")


class WriterReaderTests(unittest.TestCase):
    members = [(b"batch/2019-01.csv", b"2019-01-02,ACC-1001,12.50\n" * 40, 1546300800, 0o644),
               (b"empty.txt", b"", 1546300801, 0o600),
               (b"noise.bin", bytes(range(256)) * 3, 1546300802, 0o755)]

    def round_trip(self, version, method, key=None):
        image, stats = writer.build(version, method, key, 12, self.members)
        archive, warnings = parse(image)
        self.assertEqual(warnings, [])
        self.assertEqual(len(archive.entries), len(self.members))
        for entry, (name, data, _, _), (size, packed) in zip(archive.entries, self.members, stats):
            self.assertEqual(entry.name, name)
            self.assertEqual(entry.size, len(data))
            self.assertEqual(size, len(data))
            self.assertEqual(entry.packed(), packed)
        return archive

    def test_format_one(self):
        for method in (0, 1):
            with self.subTest(method=method):
                self.round_trip(1, method)

    def test_format_two(self):
        for method in (0, 1, 2):
            with self.subTest(method=method):
                archive = self.round_trip(2, method)
                self.assertTrue(archive.trailer_ok)
                self.assertEqual([e.mode for e in archive.entries], [0o644, 0o600, 0o755])

    def test_format_two_encrypted(self):
        archive = self.round_trip(2, 2, key=b"s3cret")
        self.assertTrue(archive.encrypted)
        self.assertIsNotNone(archive.pwcheck)

    @unittest.expectedFailure
    def test_format_three(self):
        self.round_trip(3, 2)


if __name__ == "__main__":
    unittest.main()
