"""Match printed characters against the font, cell by cell along a text line."""

import numpy as np

from . import config
from .font import ADVANCE, GLYPH_H, GLYPH_W, load_font


class GlyphMatcher:
    """Nearest-glyph classifier for cells of an ink mask printed at an integer scale."""

    def __init__(self, font=None):
        self.font = font or load_font()
        self.chars = list(self.font)
        self.glyphs = np.stack([self.font[c] for c in self.chars]).reshape(len(self.chars), -1)

    def sample(self, cell, s):
        """The 7x5 glyph-pixel grid of a cell (True where a block is mostly ink)."""
        return cell[: GLYPH_H * s, : GLYPH_W * s].reshape(GLYPH_H, s, GLYPH_W, s).mean(axis=(1, 3)) > config.CELL_FILL

    def read_cell(self, cell, s):
        """(character, mismatched glyph pixels); a blank cell is a space."""
        blocks = self.sample(cell, s)
        if blocks.sum() == 0:
            return " ", 0
        dist = (self.glyphs != blocks.reshape(-1)).sum(axis=1)
        i = int(dist.argmin())
        return self.chars[i], int(dist[i])

    def candidates(self, cell, s, n=3):
        """The ``n`` nearest characters with their distances (for the diagnostics)."""
        blocks = self.sample(cell, s).reshape(-1)
        dist = (self.glyphs != blocks).sum(axis=1)
        order = np.argsort(dist, kind="stable")[:n]
        return [(self.chars[i], int(dist[i])) for i in order]

    def read_at(self, ink, y, x0, s, x_end):
        """Read cells left to right from ``(y, x0)`` up to ``x_end``: (text, total cost).

        All cells of the line are matched at once (one array operation per line, not per cell).
        """
        n = 0
        while x0 + n * ADVANCE * s + GLYPH_W * s <= ink.shape[1] and x0 + n * ADVANCE * s <= x_end:
            n += 1
        if n == 0:
            return "", 0
        strip = ink[y:y + GLYPH_H * s, x0:x0 + n * ADVANCE * s]
        if strip.shape[1] < n * ADVANCE * s:
            strip = np.pad(strip, ((0, 0), (0, n * ADVANCE * s - strip.shape[1])))
        cells = strip.reshape(GLYPH_H, s, n, ADVANCE, s)[:, :, :, :GLYPH_W, :]
        blocks = cells.mean(axis=(1, 4)) > config.CELL_FILL
        blocks = blocks.transpose(1, 0, 2).reshape(n, -1)
        dist = (self.glyphs[None, :, :] != blocks[:, None, :]).sum(axis=2)
        best = dist.argmin(axis=1)
        blank = ~blocks.any(axis=1)
        text = "".join(" " if b else self.chars[i] for i, b in zip(best, blank))
        cost = int(np.where(blank, 0, dist[np.arange(n), best]).sum())
        return text.strip(), cost
