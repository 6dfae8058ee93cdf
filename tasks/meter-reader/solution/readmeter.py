"""Read seven-segment meter panels from PGM/PPM images.

Usage: python3 readmeter.py IMAGE [IMAGE ...] -o READINGS.json

Pipeline: decode any PNM flavour -> grey -> 3x3 median -> Otsu threshold with
the minority class as "lit" -> connected components -> drop the bezel (too
large) and specks -> find the power LED (the 2t square) -> rotate so that the
LED is above-left of the digits -> place digit cells from the LED and the
segment size -> test the seven segment slots and the decimal point slot.
"""

import argparse
import json
import os
import sys

PATTERNS = {
    "abcdef": "0", "bc": "1", "abdeg": "2", "abcdg": "3", "bcfg": "4", "acdfg": "5",
    "acdefg": "6", "abc": "7", "abcdefg": "8", "abcdfg": "9", "g": "-",
}


def read_pnm(path):
    data = open(path, "rb").read()
    tokens, pos = [], 0
    while len(tokens) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            while data[pos:pos + 1] not in (b"\n", b"\r", b""):
                pos += 1
            continue
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace() and data[pos:pos + 1] != b"#":
            pos += 1
        tokens.append(data[start:pos].decode())
    kind, cols, rows, maxval = tokens[0], int(tokens[1]), int(tokens[2]), int(tokens[3])
    channels = 3 if kind in ("P3", "P6") else 1
    count = cols * rows * channels
    if kind in ("P2", "P3"):
        body = data[pos:]
        values = [int(v) for v in body.split()[:count]]
    else:
        pos += 1  # the single whitespace after maxval
        if maxval > 255:
            values = [int.from_bytes(data[pos + 2 * i:pos + 2 * i + 2], "big") for i in range(count)]
        else:
            values = list(data[pos:pos + count])
    scale = 255.0 / maxval
    grey = []
    for r in range(rows):
        if channels == 3:
            base = r * cols * 3
            grey.append([(0.299 * values[base + 3 * c] + 0.587 * values[base + 3 * c + 1]
                          + 0.114 * values[base + 3 * c + 2]) * scale for c in range(cols)])
        else:
            grey.append([v * scale for v in values[r * cols:(r + 1) * cols]])
    return grey


def median3(img):
    rows, cols = len(img), len(img[0])
    out = [row[:] for row in img]
    for r in range(1, rows - 1):
        up, mid, down = img[r - 1], img[r], img[r + 1]
        line = out[r]
        for c in range(1, cols - 1):
            window = sorted((up[c - 1], up[c], up[c + 1], mid[c - 1], mid[c], mid[c + 1],
                             down[c - 1], down[c], down[c + 1]))
            line[c] = window[4]
    return out


def otsu(img):
    hist = [0] * 256
    for row in img:
        for v in row:
            hist[min(255, max(0, int(v)))] += 1
    total = sum(hist)
    sum_all = sum(i * h for i, h in enumerate(hist))
    best, level, w0, sum0 = -1.0, 128, 0, 0.0
    for i in range(256):
        w0 += hist[i]
        if w0 == 0 or w0 == total:
            continue
        sum0 += i * hist[i]
        m0, m1 = sum0 / w0, (sum_all - sum0) / (total - w0)
        between = w0 * (total - w0) * (m0 - m1) ** 2
        if between > best:
            best, level = between, i
    return level


def binarise(img):
    level = otsu(img)
    mask = [[min(255, max(0, int(v))) > level for v in row] for row in img]
    lit = sum(sum(row) for row in mask)
    if lit > len(img) * len(img[0]) / 2:  # lit segments are the minority
        mask = [[not v for v in row] for row in mask]
    return mask


def components(mask):
    rows, cols = len(mask), len(mask[0])
    seen = [[False] * cols for _ in range(rows)]
    out = []
    for r in range(rows):
        for c in range(cols):
            if not mask[r][c] or seen[r][c]:
                continue
            stack = [(r, c)]
            seen[r][c] = True
            x0 = x1 = c
            y0 = y1 = r
            area = 0
            while stack:
                y, x = stack.pop()
                area += 1
                x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < rows and 0 <= nx < cols and mask[ny][nx] and not seen[ny][nx]:
                        seen[ny][nx] = True
                        stack.append((ny, nx))
            out.append({"x": x0, "y": y0, "w": x1 - x0 + 1, "h": y1 - y0 + 1, "area": area})
    return out


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def rotate_box(box, cols, rows, turns):
    """Box coordinates after rotating the image `turns` quarter turns clockwise."""
    x, y, w, h = box["x"], box["y"], box["w"], box["h"]
    for _ in range(turns % 4):
        x, y, w, h = rows - (y + h), x, h, w
        cols, rows = rows, cols
    return {**box, "x": x, "y": y, "w": w, "h": h}


def rotate_mask(mask, turns):
    for _ in range(turns % 4):  # clockwise, as rotate_box
        mask = [list(row) for row in zip(*mask[::-1])]
    return mask


def lit_fraction(mask, x0, y0, x1, y1):
    rows, cols = len(mask), len(mask[0])
    xs = range(max(0, int(round(x0))), min(cols, int(round(x1))))
    ys = range(max(0, int(round(y0))), min(rows, int(round(y1))))
    total = len(xs) * len(ys)
    if not total:
        return 0.0
    return sum(mask[y][x] for y in ys for x in xs) / total


def read_panel(img):
    mask = binarise(median3(img))
    rows, cols = len(mask), len(mask[0])
    parts = [p for p in components(mask) if p["area"] >= 4]
    bars = [p for p in parts if max(p["w"], p["h"]) >= 2.2 * min(p["w"], p["h"])]
    L = median([max(p["w"], p["h"]) for p in bars])
    # everything digit-sized (noise can weld neighbouring segments together)
    inner = [p for p in parts if p["area"] >= 6 and max(p["w"], p["h"]) <= 2.5 * L and p["x"] > 0
             and p["y"] > 0 and p["x"] + p["w"] < cols and p["y"] + p["h"] < rows]
    # drop the bezel (much larger than a segment) and specks
    parts = [p for p in parts if max(p["w"], p["h"]) <= 1.5 * L and p["area"] >= 6]
    bars = [p for p in parts if max(p["w"], p["h"]) >= 2.2 * min(p["w"], p["h"])]
    solid = [p for p in parts if p not in bars and p["area"] >= 0.7 * p["w"] * p["h"]]
    led = max(solid, key=lambda p: p["area"])
    t = (led["w"] + led["h"]) / 4.0
    # real segments are about t thick and L long and never touch the image edge
    bars = [b for b in bars if min(b["w"], b["h"]) >= 0.6 * t and max(b["w"], b["h"]) >= 0.6 * L
            and b["x"] > 0 and b["y"] > 0 and b["x"] + b["w"] < cols and b["y"] + b["h"] < rows]
    for turns in range(4):
        r_led = rotate_box(led, cols, rows, turns)
        r_bars = [rotate_box(b, cols, rows, turns) for b in bars]
        top = min(b["y"] for b in r_bars)
        left = min(b["x"] for b in r_bars)
        if r_led["y"] + r_led["h"] <= top + t / 2 and r_led["x"] <= left + t:
            break
    mask = rotate_mask(mask, turns)
    t = median([min(b["w"], b["h"]) for b in r_bars])  # bar thickness is robust to specks
    L = median([max(b["w"], b["h"]) for b in r_bars])
    W, H, gap = L + 2 * t, 2 * L + 3 * t, 2 * t
    pitch = W + gap
    # the LED centre gives a first guess of the first cell; horizontal bars refine it
    x0 = r_led["x"] + r_led["w"] / 2.0 - t
    cy = r_led["y"] + r_led["h"] / 2.0 + 2 * t
    flat = [b for b in r_bars if b["w"] > b["h"]]
    if flat:
        xs = [b["x"] - t - round((b["x"] - t - x0) / pitch) * pitch for b in flat]
        x0 = median(xs)
        ys = []
        for b in flat:
            offset = min((0, L + t, 2 * L + 2 * t), key=lambda o: abs(b["y"] - o - cy))
            ys.append(b["y"] - offset)
        cy = median(ys)
    right = max(b["x"] + b["w"] for b in r_bars)
    for p in inner:
        if p is not led:
            box = rotate_box(p, cols, rows, turns)
            if box["y"] < cy + H and box["y"] + box["h"] > cy:
                right = max(right, box["x"] + box["w"])
    count = int(round((right - x0 + gap) / pitch))
    slots = {  # segment rectangles inside a cell: x, y, w, h
        "a": (t, 0, L, t), "b": (L + t, t, t, L), "c": (L + t, 2 * t + L, t, L),
        "d": (t, 2 * L + 2 * t, L, t), "e": (0, 2 * t + L, t, L), "f": (0, t, t, L),
        "g": (t, L + t, L, t),
    }
    text = ""
    for i in range(count):
        cx = x0 + i * pitch
        lit = ""
        for name, (sx, sy, sw, sh) in slots.items():
            # sample the middle of the slot, away from the corners
            if lit_fraction(mask, cx + sx + 0.25 * sw, cy + sy + 0.25 * sh,
                            cx + sx + 0.75 * sw, cy + sy + 0.75 * sh) > 0.5:
                lit += name
        text += PATTERNS.get("".join(sorted(lit)), "?")
        dx, dy = cx + W + t // 2, cy + H - t
        if lit_fraction(mask, dx + 0.2 * t, dy + 0.2 * t, dx + 0.8 * t, dy + 0.8 * t) > 0.5:
            text += "."
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("images", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    readings = {}
    for path in args.images:
        try:
            readings[os.path.basename(path)] = read_panel(read_pnm(path))
        except Exception as exc:  # keep going: one bad image must not lose the rest
            print(f"{path}: {exc}", file=sys.stderr)
            readings[os.path.basename(path)] = ""
    with open(args.output, "w") as handle:
        json.dump({"readings": readings}, handle, indent=2)


if __name__ == "__main__":
    main()
