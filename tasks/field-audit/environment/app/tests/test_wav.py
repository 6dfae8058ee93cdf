import struct
import tempfile
import unittest
from pathlib import Path

import numpy as np

from fieldkit import dtmf
from fieldkit.keylog import parse_presses, read_keylog
from fieldkit.riff import RiffError, chunks, info_tags
from fieldkit.wav import read_wav


def chunk(tag, body):
    return tag + struct.pack("<I", len(body)) + body


def tone(keys, rate=8000, amp=0.3):
    """A clean recording of ``keys``: each (onset, key, length)."""
    n = int((keys[-1][0] + 1.0) * rate)
    x = np.zeros(n)
    for onset, key, length in keys:
        r = next(i for i, row in enumerate(dtmf.KEYS) if key in row)
        c = dtmf.KEYS[r].index(key)
        i0, i1 = int(onset * rate), int((onset + length) * rate)
        t = np.arange(i1 - i0) / rate
        x[i0:i1] += amp * (np.sin(2 * np.pi * dtmf.ROWS[r] * t) + np.sin(2 * np.pi * dtmf.COLS[c] * t))
    return x


def wav_bytes(x, rate=8000, icrd=b"08:00:00\0\0"):
    data = np.round(x * 32767).astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    info = b"INFO" + chunk(b"ICRD", icrd)
    body = b"WAVE" + chunk(b"fmt ", fmt) + chunk(b"LIST", info) + chunk(b"data", data)
    return b"RIFF" + struct.pack("<I", len(body)) + body


class WavTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())

    def test_chunks_and_info(self):
        data = wav_bytes(np.zeros(800))
        tags = [tag for tag, _, _ in chunks(data)]
        self.assertEqual(tags, [b"fmt ", b"LIST", b"data"])
        self.assertEqual(info_tags(chunks(data)[1][2]), {"ICRD": "08:00:00"})
        self.assertEqual(info_tags(b"adtl"), {})

    def test_read_16bit_mono(self):
        x = np.sin(np.arange(800) / 10) * 0.5
        (self.dir / "a.wav").write_bytes(wav_bytes(x))
        rate, channels, info = read_wav(self.dir / "a.wav")
        self.assertEqual((rate, len(channels), info["ICRD"]), (8000, 1, "08:00:00"))
        self.assertLess(float(np.max(np.abs(channels[0] - x))), 1e-3)

    def test_not_a_wav(self):
        (self.dir / "b.wav").write_bytes(b"RIFX0000WAVE")
        with self.assertRaises(RiffError):
            read_wav(self.dir / "b.wav")

    def test_keylog_of_a_clean_recording(self):
        keys = [(0.5, "*", 0.1), (2.0, "1", 0.1), (2.2, "#", 0.1), (4.0, "2", 0.1), (4.2, "#", 0.1)]
        (self.dir / "k.wav").write_bytes(wav_bytes(tone(keys)))
        log = read_keylog(self.dir / "k.wav")
        self.assertEqual(log.numbers, [1, 2])
        self.assertAlmostEqual(log.star, 0.5, delta=0.03)
        self.assertEqual(log.icrd, 8 * 3600)

    def test_parse_presses_multi_digit(self):
        star, units = parse_presses([(1.0, "*"), (2.0, "1"), (2.2, "2"), (2.4, "#")])
        self.assertEqual(star, 1.0)
        self.assertEqual([u for u, _ in units], [12])


if __name__ == "__main__":
    unittest.main()
