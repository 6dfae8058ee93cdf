"""The form printer's 5x7 bitmap font (docs/font5x7.txt)."""

from pathlib import Path

import numpy as np

FONT_PATH = Path(__file__).resolve().parent.parent / "docs" / "font5x7.txt"
GLYPH_H, GLYPH_W = 7, 5
#: horizontal advance and line pitch of the printer, in font pixels
ADVANCE, PITCH = 6, 12


def load_font(path=FONT_PATH):
    """Map each character to its 7x5 boolean glyph."""
    font, cur = {}, None
    for line in Path(path).read_text().splitlines():
        if line.startswith("glyph "):
            cur = line[6:].strip()
            font[cur] = []
        elif cur is not None and line and line[0] in ".#":
            font[cur].append([c == "#" for c in line])
    bad = [k for k, rows in font.items() if len(rows) != GLYPH_H or any(len(r) != GLYPH_W for r in rows)]
    if bad:
        raise ValueError(f"{path}: malformed glyphs {bad}")
    return {k: np.array(v, dtype=bool) for k, v in font.items()}


def render_text(lines, font, scale=1, margin=2):
    """Ink mask of ``lines`` typed at ``scale`` (what the printer puts on paper)."""
    width = max((len(t) for t in lines), default=0) * ADVANCE * scale + 2 * margin
    height = len(lines) * PITCH * scale + 2 * margin
    ink = np.zeros((height, width), dtype=bool)
    for li, text in enumerate(lines):
        y0 = margin + li * PITCH * scale
        for ci, ch in enumerate(text):
            if ch == " ":
                continue
            glyph = np.kron(font[ch], np.ones((scale, scale), dtype=bool))
            x0 = margin + ci * ADVANCE * scale
            ink[y0:y0 + GLYPH_H * scale, x0:x0 + GLYPH_W * scale] |= glyph
    return ink
