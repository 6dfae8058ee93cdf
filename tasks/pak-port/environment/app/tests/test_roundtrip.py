"""Round-trip tests of the port (run: cd /app && python3 -m unittest discover -s tests).

These check that the port reads back what it writes. They do NOT show that
the port matches the legacy tool: see tools/compare_with_legacy.py for that.
"""

import os
import random
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(APP))

from pypak import codec, lz, rle  # noqa: E402
from pypak.checksums import crc16, crc32, fnv1a32, sum16  # noqa: E402
from pypak.crypt import Keystream  # noqa: E402


def samples():
    rng = random.Random(7)
    yield b""
    yield b"a"
    yield b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    yield bytes(rng.getrandbits(8) for _ in range(3000))
    yield b"the quick brown fox jumps over the lazy dog\n" * 50
    yield bytes(range(256)) * 4


class CodecTests(unittest.TestCase):
    def test_rle_round_trip(self):
        for data in samples():
            self.assertEqual(rle.decode(rle.encode(data), len(data)), data)

    def test_lz_round_trip(self):
        for data in samples():
            self.assertEqual(lz.decode(lz.encode(data), len(data)), data)

    def test_store(self):
        for data in samples():
            self.assertEqual(codec.decompress(0, codec.compress(0, data), len(data)), data)

    def test_keystream_is_an_involution(self):
        data = b"payroll 2019" * 10
        once = Keystream(b"key", 3).xor(data)
        self.assertNotEqual(once, data)
        self.assertEqual(Keystream(b"key", 3).xor(once), data)


class ChecksumTests(unittest.TestCase):
    def test_values_are_in_range(self):
        for data in samples():
            self.assertLess(crc32(data), 1 << 32)
            self.assertLess(crc16(data), 1 << 16)
            self.assertLess(sum16(data), 1 << 16)
            self.assertLess(fnv1a32(data), 1 << 32)


class CommandLineTests(unittest.TestCase):
    def pak(self, *args, cwd):
        return subprocess.run([sys.executable, str(APP / "pak.py"), *args], cwd=cwd,
                              capture_output=True)

    def test_create_then_extract(self):
        for fmt, method in (("1", "store"), ("1", "rle"), ("2", "rle"), ("2", "lz")):
            with tempfile.TemporaryDirectory() as tmp:
                os.makedirs(os.path.join(tmp, "in", "sub"))
                files = {"in/a.txt": b"hello\n" * 100, "in/sub/b.bin": bytes(range(256))}
                for name, data in files.items():
                    Path(tmp, name).write_bytes(data)
                made = self.pak("c", "-f", fmt, "-m", method, "out.pak", *files, cwd=tmp)
                self.assertEqual(made.returncode, 0, made.stderr)
                done = self.pak("x", "out.pak", "dest", cwd=tmp)
                self.assertEqual(done.returncode, 0, done.stderr)
                for name, data in files.items():
                    self.assertEqual(Path(tmp, "dest", name).read_bytes(), data)


if __name__ == "__main__":
    unittest.main()
