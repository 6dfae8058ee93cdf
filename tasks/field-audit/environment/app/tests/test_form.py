import tempfile
import unittest
from pathlib import Path

import numpy as np

from fieldkit.font import load_font, render_text
from fieldkit.form import FormReader
from fieldkit.glyphs import GlyphMatcher
from fieldkit.layout import bands, print_scale, strip_rules, text_bands
from fieldkit.pnm import PnmError, read_pgm, write_pgm

LINES = ["FIELD INSPECTION", "CASE K7PX2", "SITE 0412", "START 08:15:00", "UNITS 7", "INSP RW"]


class FontTest(unittest.TestCase):
    def test_every_glyph_reads_back(self):
        matcher = GlyphMatcher()
        for ch, glyph in matcher.font.items():
            for s in (1, 3):
                cell = np.kron(glyph, np.ones((s, s), dtype=bool))
                got, cost = matcher.read_cell(cell, s)
                self.assertEqual((got, cost), (ch, 0) if glyph.any() else (" ", 0))

    def test_digits_and_letters_present(self):
        font = load_font()
        for ch in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:-":
            self.assertIn(ch, font)


class LayoutTest(unittest.TestCase):
    def test_bands(self):
        self.assertEqual(bands(np.array([0, 3, 3, 0, 0, 5, 1, 5])), [(1, 3), (5, 6), (7, 8)])

    def test_scale_and_rules(self):
        ink = render_text(LINES, load_font(), scale=3, margin=9)
        ink[4, :] = True
        clean = strip_rules(ink)
        self.assertFalse(clean[4].any())
        self.assertEqual(print_scale(text_bands(clean)), 3)


class FormReaderTest(unittest.TestCase):
    def test_clean_upright_scan(self):
        ink = render_text(LINES, load_font(), scale=3, margin=12)
        img = np.where(ink, 40.0, 225.0)
        path = Path(tempfile.mkdtemp()) / "form.pgm"
        write_pgm(path, img)
        self.assertEqual(read_pgm(path).shape, img.shape)
        fields = FormReader().read(path)
        self.assertEqual(fields["CASE"], "K7PX2")
        self.assertEqual(fields["START"], "08:15:00")
        self.assertEqual(fields["UNITS"], "7")

    def test_rejects_other_formats(self):
        path = Path(tempfile.mkdtemp()) / "x.pgm"
        path.write_bytes(b"P6\n2 2\n255\n" + bytes(12))
        with self.assertRaises(PnmError):
            read_pgm(path)


if __name__ == "__main__":
    unittest.main()
