"""Read the typed fields of a scanned inspection form."""

from .binarize import ink_mask
from .fields import parse_fields
from .font import GLYPH_H
from .glyphs import GlyphMatcher
from .layout import ink_columns, print_scale, strip_rules, text_bands
from .pnm import read_pgm


class FormReader:
    """Scan -> ink mask -> text lines -> labelled fields."""

    def __init__(self, font=None):
        self.matcher = GlyphMatcher(font)
        self.last_lines = []

    def read_band(self, ink, y0, y1, s):
        """Best reading of one text band: (text, cost)."""
        cols = ink_columns(ink, y0, y1)
        if len(cols) == 0:
            return "", 0
        origins = [int(cols[0])]
        best = None
        for y in (y0,):
            if y + GLYPH_H * s > ink.shape[0]:
                break
            for x0 in origins:
                got = self.matcher.read_at(ink, y, x0, s, cols[-1])
                if best is None or got[1] < best[1]:
                    best = got
        return best or ("", 0)

    def read_lines(self, ink):
        """Every text line of an upright page, top to bottom."""
        ink = strip_rules(ink)
        rows = text_bands(ink)
        if not rows:
            return []
        s = print_scale(rows)
        lines = []
        for y0, y1 in rows:
            if y1 - y0 < GLYPH_H * s - 2:
                continue
            lines.append(self.read_band(ink, y0, y1, s)[0])
        return lines

    def read_ink(self, ink):
        """Fields read from an ink mask."""
        self.last_lines = self.read_lines(ink)
        return parse_fields(self.last_lines)

    def read(self, path):
        """Fields read from a scanned form file."""
        return self.read_ink(ink_mask(read_pgm(path)))
