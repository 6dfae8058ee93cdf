"""The form printer's 5x7 bitmap font (docs/font5x7.txt)."""

from pathlib import Path

import numpy as np

FONT_PATH = Path(__file__).resolve().parent.parent / "docs" / "font5x7.txt"


def load_font(path=FONT_PATH):
    """Map each character to its 7x5 boolean glyph."""
    font, cur = {}, None
    for line in Path(path).read_text().splitlines():
        if line.startswith("glyph "):
            cur = line[6:].strip()
            font[cur] = []
        elif cur is not None and line and line[0] in ".#":
            font[cur].append([c == "#" for c in line])
    return {k: np.array(v, dtype=bool) for k, v in font.items()}
