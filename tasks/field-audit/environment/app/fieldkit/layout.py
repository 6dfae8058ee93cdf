"""Page layout of a form: ruled lines, text bands and the print scale."""

import numpy as np

from . import config
from .font import GLYPH_H


def strip_rules(ink, share=None):
    """Remove ruled lines: rows and columns inked over more than ``share`` of the page."""
    share = config.RULE_SHARE if share is None else share
    ink = ink.copy()
    h, w = ink.shape
    ink[ink.sum(axis=1) > share * w, :] = False
    ink[:, ink.sum(axis=0) > share * h] = False
    return ink


def bands(profile, min_count=2):
    """Runs ``(start, stop)`` where ``profile`` is at least ``min_count``."""
    on = profile >= min_count
    out, start = [], None
    for i, v in enumerate(on):
        if v and start is None:
            start = i
        elif not v and start is not None:
            out.append((start, i))
            start = None
    if start is not None:
        out.append((start, len(on)))
    return out


def text_bands(ink):
    """Horizontal bands tall enough to hold a line of text."""
    return [b for b in bands(ink.sum(axis=1)) if b[1] - b[0] >= config.MIN_BAND]


def print_scale(text_rows):
    """Font pixels per glyph pixel, from the median band height."""
    if not text_rows:
        return 1
    return max(1, round(float(np.median([b - a for a, b in text_rows])) / GLYPH_H))


def ink_columns(ink, y0, y1):
    """Columns of ``ink[y0:y1]`` holding any ink."""
    return np.nonzero(ink[y0:y1].sum(axis=0) > 0)[0]


def bounding_box(ink):
    """``(y0, y1, x0, x1)`` of all ink, or None for a blank page."""
    rows = np.nonzero(ink.any(axis=1))[0]
    cols = np.nonzero(ink.any(axis=0))[0]
    if len(rows) == 0:
        return None
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def describe(ink):
    """Layout summary for the diagnostics: bands, scale, ink box."""
    clean = strip_rules(ink)
    rows = text_bands(clean)
    return {"bands": [list(map(int, b)) for b in rows], "scale": print_scale(rows), "box": bounding_box(clean)}
