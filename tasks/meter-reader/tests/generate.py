"""Seeded seven-segment meter images (PGM/PPM) and their readings.

Geometry (segment thickness t, segment length L): a digit cell is L + 2t wide
and 2L + 3t high, cells are 2t apart, the decimal point is a t x t square in
the gap after its digit, level with the bottom segment, and the power LED is a
2t x 2t square whose top-left corner is 3t above the first cell's top-left.
"""

import random

SEGMENTS = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg",
    "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg", "-": "g",
}


def seg_rects(t, L):
    return {
        "a": (t, 0, L, t), "b": (L + t, t, t, L), "c": (L + t, 2 * t + L, t, L),
        "d": (t, 2 * L + 2 * t, L, t), "e": (0, 2 * t + L, t, L), "f": (0, t, t, L),
        "g": (t, L + t, L, t),
    }


def random_reading(rng):
    cells = rng.randint(3, 6)
    negative = rng.random() < 0.25
    digits = cells - (1 if negative else 0)
    body = "".join(rng.choice("0123456789") for _ in range(digits))
    if digits >= 2 and rng.random() < 0.7:
        cut = rng.randint(1, digits - 1)
        body = body[:cut] + "." + body[cut:]
    return ("-" if negative else "") + body


def render(reading, t, L, margin, fg=1, bg=0, bezel=False):
    """Return a 2-D list of 0/1 (1 = lit) and the content box."""
    cells = []  # (char, dot_after)
    for ch in reading:
        if ch == ".":
            cells[-1] = (cells[-1][0], True)
        else:
            cells.append((ch, False))
    W, H, gap = L + 2 * t, 2 * L + 3 * t, 2 * t
    width = len(cells) * W + (len(cells) - 1) * gap + gap  # room for a trailing dot
    height = 3 * t + H
    outer = t if bezel else 0  # background outside the bezel ring
    pad = margin + (outer + t if bezel else 0)
    img = [[0] * (width + 2 * pad) for _ in range(height + 2 * pad)]

    def fill(x, y, w, h):
        for yy in range(y, y + h):
            row = img[yy]
            for xx in range(x, x + w):
                row[xx] = 1

    x0, y0 = pad, pad
    fill(x0, y0, 2 * t, 2 * t)  # power LED
    rects = seg_rects(t, L)
    for i, (ch, dot) in enumerate(cells):
        cx, cy = x0 + i * (W + gap), y0 + 3 * t
        for s in SEGMENTS[ch]:
            x, y, w, h = rects[s]
            fill(cx + x, cy + y, w, h)
        if dot:
            fill(cx + W + t // 2, cy + H - t, t, t)
    if bezel:
        rows, cols = len(img), len(img[0])
        fill(outer, outer, cols - 2 * outer, t)
        fill(outer, rows - outer - t, cols - 2 * outer, t)
        fill(outer, outer, t, rows - 2 * outer)
        fill(cols - outer - t, outer, t, rows - 2 * outer)
    return img, (x0, y0, width, height)


def rotate(img, quarter_turns):
    for _ in range(quarter_turns % 4):  # clockwise
        img = [list(row) for row in zip(*img[::-1])]
    return img


def crop(rng, img, box, t):
    """Cut an asymmetric window that keeps the content plus >= t but may cut the bezel."""
    x0, y0, w, h = box
    rows, cols = len(img), len(img[0])
    left = rng.randint(0, max(0, x0 - t))
    top = rng.randint(0, max(0, y0 - t))
    right = rng.randint(min(cols, x0 + w + t), cols)
    bottom = rng.randint(min(rows, y0 + h + t), rows)
    return [row[left:right] for row in img[top:bottom]]


def shade(rng, img, fg, bg, noise=0.0, salt=0.0):
    """Map 0/1 to grey (or RGB tuples) with optional Gaussian and salt-and-pepper noise."""
    out = []
    for row in img:
        line = []
        for v in row:
            base = fg if v else bg
            if isinstance(base, tuple):
                px = tuple(min(255, max(0, int(round(c + rng.gauss(0, noise))))) if noise else c for c in base)
                if salt and rng.random() < salt:
                    px = (255, 255, 255) if rng.random() < 0.5 else (0, 0, 0)
            else:
                px = min(255, max(0, int(round(base + rng.gauss(0, noise))))) if noise else base
                if salt and rng.random() < salt:
                    px = 255 if rng.random() < 0.5 else 0
            line.append(px)
        out.append(line)
    return out


def encode(pixels, kind, maxval=255, comment=True):
    rows, cols = len(pixels), len(pixels[0])
    head = kind + "\n" + ("# meter panel capture\n" if comment else "") + f"{cols} {rows}\n{maxval}\n"
    scale = maxval / 255.0
    if kind in ("P2", "P3"):
        lines = []
        for row in pixels:
            vals = []
            for px in row:
                vals.extend(px if isinstance(px, tuple) else (px,))
            lines.append(" ".join(str(int(round(v * scale))) for v in vals))
        return (head + "\n".join(lines) + "\n").encode()
    body = bytearray()
    for row in pixels:
        for px in row:
            for v in (px if isinstance(px, tuple) else (px,)):
                v = int(round(v * scale))
                body += v.to_bytes(2 if maxval > 255 else 1, "big")
    return head.encode() + bytes(body)


def make(rng, *, kind="P2", inverted=False, colour=False, noise=0.0, salt=0.0, turns=0,
         bezel=False, maxval=255, reading=None):
    reading = reading or random_reading(rng)
    t = rng.randint(3, 5)
    L = rng.randint(3 * t, 4 * t)
    margin = rng.randint(t, 3 * t)
    img, box = render(reading, t, L, margin, bezel=bezel)
    if bezel:
        img = crop(rng, img, box, t)
    img = rotate(img, turns)
    if colour:
        if inverted:
            fg = rng.choice([(40, 230, 70), (250, 60, 40), (80, 160, 255)])
            bg = (rng.randint(5, 30), rng.randint(5, 30), rng.randint(5, 30))
        else:
            fg = rng.choice([(170, 20, 20), (20, 90, 30), (30, 30, 120)])
            bg = (rng.randint(215, 245), rng.randint(210, 240), rng.randint(180, 220))
    elif inverted:
        fg, bg = rng.randint(190, 250), rng.randint(5, 50)
    else:
        fg, bg = rng.randint(10, 70), rng.randint(180, 240)
    pixels = shade(rng, img, fg, bg, noise, salt)
    return encode(pixels, kind, maxval), reading


def public_samples():
    rng = random.Random(7)
    return [("sample_1.pgm",) + make(rng, reading="-12.7"), ("sample_2.pgm",) + make(rng, reading="0.045"),
            ("sample_3.pgm",) + make(rng, reading="1234"), ("sample_4.pgm",) + make(rng, reading="88.61")]


HIDDEN_PER_SUBTASK = 20


def hidden_images(seed, count=HIDDEN_PER_SUBTASK):
    """{subtask: [(file name, bytes, reading), ...]}, `count` images per subtask (each
    subtask's variants in turn)."""
    rng = random.Random(seed)
    plan = {
        "other_readings": [dict()],
        "binary_pgm": [dict(kind="P5"), dict(kind="P5", maxval=65535), dict(kind="P2", maxval=1023)],
        "colour_ppm": [dict(kind="P6", colour=True), dict(kind="P3", colour=True), dict(kind="P6", colour=True)],
        "inverted_polarity": [dict(inverted=True), dict(kind="P5", inverted=True),
                              dict(kind="P6", colour=True, inverted=True)],
        "noisy": [dict(noise=14.0, salt=0.02), dict(kind="P5", noise=18.0, salt=0.01),
                  dict(kind="P6", colour=True, noise=12.0, salt=0.02)],
        "rotated": [dict(turns=1), dict(turns=2), dict(kind="P5", turns=3)],
        "cropped_bezel": [dict(bezel=True), dict(bezel=True, kind="P5"), dict(bezel=True, inverted=True)],
        "combined": [dict(kind=rng.choice(["P5", "P6"]), colour=None, inverted=None, noise=12.0, salt=0.015,
                          turns=rng.randint(1, 3), bezel=True) for _ in range(count)],
    }
    out = {}
    n = 0
    for name, variants in plan.items():
        out[name] = []
        for i in range(count):
            spec = dict(variants[i % len(variants)])
            if spec.get("colour") is None and "colour" in spec:
                spec["colour"] = spec["kind"] == "P6"
            if spec.get("inverted") is None and "inverted" in spec:
                spec["inverted"] = rng.random() < 0.5
            data, reading = make(rng, **spec)
            ext = "ppm" if spec.get("kind") in ("P3", "P6") else "pgm"
            n += 1
            out[name].append((f"img_{n:03d}_{rng.randrange(16 ** 6):06x}.{ext}", data, reading))
    return out
