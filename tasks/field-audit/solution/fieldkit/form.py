"""Read the typed fields of a scanned inspection form."""

import numpy as np

from .binarize import ink_mask
from .font import load_font
from .pnm import read_pgm

LABELS = ("CASE", "SITE", "START", "UNITS", "INSP")


def _strip_rules(ink):
    ink = ink.copy()
    h, w = ink.shape
    ink[ink.sum(axis=1) > 0.45 * w, :] = False
    ink[:, ink.sum(axis=0) > 0.45 * h] = False
    return ink


def _bands(profile, min_count=2):
    on = profile >= min_count
    bands, start = [], None
    for i, v in enumerate(on):
        if v and start is None:
            start = i
        elif not v and start is not None:
            bands.append((start, i))
            start = None
    if start is not None:
        bands.append((start, len(on)))
    return bands


class FormReader:
    def __init__(self, font=None):
        self.font = font or load_font()
        self.chars = list(self.font)
        self.glyphs = np.stack([self.font[c] for c in self.chars]).reshape(len(self.chars), -1)

    def read_cell(self, cell, s):
        blocks = cell[: 7 * s, : 5 * s].reshape(7, s, 5, s).mean(axis=(1, 3)) > 0.5
        if blocks.sum() == 0:
            return " ", 0
        dist = (self.glyphs != blocks.reshape(-1)).sum(axis=1)
        i = int(dist.argmin())
        return self.chars[i], int(dist[i])

    def read_at(self, ink, y, x0, s, x_end):
        text, cost, x = [], 0, x0
        while x + 5 * s <= ink.shape[1] and x <= x_end:
            ch, d = self.read_cell(ink[y:y + 7 * s, x:x + 5 * s], s)
            text.append(ch)
            cost += d
            x += 6 * s
        return "".join(text).strip(), cost

    def read_band(self, ink, y0, y1, s):
        cols = np.nonzero(ink[y0:y1].sum(axis=0) > 0)[0]
        if len(cols) == 0:
            return "", 0
        starts = [int(c) for i, c in enumerate(cols) if i == 0 or c - cols[i - 1] > 1][:3]
        origins = {c - off for c in starts for off in range(0, 2 * s + 1) if c - off >= 0}
        origins = sorted(origins | {int(cols[0]) + k for k in range(4 * s)})
        best = None
        for y in range(max(0, y0 - 1), max(y0, y1 - 7 * s + 1) + 1):
            if y + 7 * s > ink.shape[0]:
                break
            for x0 in origins:
                text, cost = self.read_at(ink, y, x0, s, cols[-1])
                skipped = ink[y:y + 7 * s, cols[0]:x0].sum() / (s * s)
                got = (text, cost + skipped)
                if best is None or got[1] < best[1]:
                    best = got
        return best or ("", 0)

    def read_lines(self, ink):
        ink = _strip_rules(ink)
        bands = [b for b in _bands(ink.sum(axis=1)) if b[1] - b[0] >= 5]
        if not bands:
            return []
        s = max(1, round(float(np.median([b - a for a, b in bands])) / 7))
        lines = []
        for y0, y1 in bands:
            if y1 - y0 < 7 * s - 2:
                continue
            lines.append(self.read_band(ink, y0, y1, s)[0])
        return lines

    def read(self, path):
        ink = ink_mask(read_pgm(path))
        best = None
        for k in range(4):
            lines = self.read_lines(np.rot90(ink, k))
            fields = parse_fields(lines)
            if best is None or len(fields) > len(best):
                best = fields
            if len(fields) == len(LABELS):
                break
        return best


def parse_fields(lines):
    fields = {}
    for line in lines:
        parts = line.split()
        if len(parts) >= 2 and parts[0] in LABELS:
            value = "".join(parts[1:])
            fields[parts[0]] = value.strip("-") if parts[0] == "START" else value.strip("-:")
    return fields
