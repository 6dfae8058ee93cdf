"""Weak baseline (public checks only), installed as /app/readmeter.py.

Handles what the samples show: plain P2 files with maxval 255, dark segments on
a light panel, upright, no noise. Fixed threshold 128, no denoising, no
rotation, no bezel handling, other PNM flavours rejected."""

import argparse
import json
import os

PATTERNS = {"abcdef": "0", "bc": "1", "abdeg": "2", "abcdg": "3", "bcfg": "4", "acdfg": "5",
            "acdefg": "6", "abc": "7", "abcdefg": "8", "abcdfg": "9", "g": "-"}


def read_pgm(path):
    with open(path) as handle:
        tokens = [tok for line in handle for tok in line.split("#")[0].split()]
    if tokens[0] != "P2":
        raise ValueError("only P2")
    cols, rows = int(tokens[1]), int(tokens[2])
    values = [int(v) for v in tokens[4:4 + cols * rows]]
    return [values[r * cols:(r + 1) * cols] for r in range(rows)]


def read_panel(grey):
    mask = [[v < 128 for v in row] for row in grey]
    rows, cols = len(mask), len(mask[0])
    lit = [(r, c) for r in range(rows) for c in range(cols) if mask[r][c]]
    top = min(r for r, _ in lit)
    left = min(c for r, c in lit if r == top)
    t = 0
    while mask[top][left + t]:
        t += 1
    t //= 2  # the LED is 2t wide
    cy = top + 3 * t
    # segment length: the first horizontal run of lit pixels below the LED
    L = 0
    for r in range(cy, rows):
        for c in range(cols):
            if mask[r][c]:
                run = 0
                while c + run < cols and mask[r][c + run]:
                    run += 1
                if run > 2 * t:
                    L = run
                    break
        if L:
            break
    right = max(c for _, c in lit)
    W, H, gap = L + 2 * t, 2 * L + 3 * t, 2 * t
    count = round((right + 1 - left + gap) / (W + gap))
    slots = {"a": (t + L // 2, t // 2), "b": (L + t + t // 2, t + L // 2), "c": (L + t + t // 2, 2 * t + L + L // 2),
             "d": (t + L // 2, 2 * L + 2 * t + t // 2), "e": (t // 2, 2 * t + L + L // 2),
             "f": (t // 2, t + L // 2), "g": (t + L // 2, L + t + t // 2)}
    text = ""
    for i in range(count):
        cx = left + i * (W + gap)
        on = "".join(s for s, (dx, dy) in slots.items() if mask[cy + dy][cx + dx])
        text += PATTERNS.get(on, "?")
        if mask[cy + H - t + t // 2][cx + W + t // 2 + t // 2]:
            text += "."
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    readings = {}
    for path in args.images:
        try:
            readings[os.path.basename(path)] = read_panel(read_pgm(path))
        except Exception:
            readings[os.path.basename(path)] = ""
    with open(args.output, "w") as handle:
        json.dump({"readings": readings}, handle, indent=2)


if __name__ == "__main__":
    main()
