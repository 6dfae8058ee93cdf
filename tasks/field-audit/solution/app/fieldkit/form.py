"""Read the typed fields of a scanned inspection form."""

import numpy as np

from .binarize import ink_mask
from .fields import LABELS, parse_fields
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
        starts = [int(c) for i, c in enumerate(cols) if i == 0 or c - cols[i - 1] > 1][:3]
        origins = {c - off for c in starts for off in range(0, 2 * s + 1) if c - off >= 0}
        origins = sorted(origins | {int(cols[0]) + k for k in range(4 * s)})
        best = None
        for y in range(max(0, y0 - 1), max(y0, y1 - GLYPH_H * s + 1) + 1):
            if y + GLYPH_H * s > ink.shape[0]:
                break
            for x0 in origins:
                text, cost = self.matcher.read_at(ink, y, x0, s, cols[-1])
                skipped = ink[y:y + GLYPH_H * s, cols[0]:x0].sum() / (s * s)
                got = (text, cost + skipped)
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
        """Fields read from an ink mask, in whichever quarter turn reads best."""
        best = None
        for k in range(4):
            lines = self.read_lines(np.rot90(ink, k))
            fields = parse_fields(lines)
            if best is None or len(fields) > len(best):
                best, self.last_lines = fields, lines
            if len(fields) == len(LABELS):
                break
        return best

    def read(self, path):
        """Fields read from a scanned form file."""
        return self.read_ink(ink_mask(read_pgm(path)))
