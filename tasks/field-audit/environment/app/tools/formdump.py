"""Show what the form stage sees: python3 tools/formdump.py CASE_DIR_OR_FORM [--mask out.pgm] [--ascii]

Prints the scan's grey statistics, the layout (text bands, print scale), every
text line as read with its match cost, the parsed fields and anything odd about
them. ``--mask`` writes the ink mask as a PGM; ``--ascii`` prints it (small
scans only)."""

import argparse
from pathlib import Path

import _path  # noqa: F401

from fieldkit.binarize import ink_mask, page_stats
from fieldkit.fields import parse_fields, problems
from fieldkit.font import GLYPH_H
from fieldkit.form import FormReader
from fieldkit.layout import describe, print_scale, strip_rules, text_bands
from fieldkit.pnm import read_pgm, write_pgm


def ascii_mask(ink, width=160):
    """The mask as text, shrunk to at most ``width`` columns."""
    step = max(1, -(-ink.shape[1] // width))
    rows = []
    for y in range(0, ink.shape[0], step):
        rows.append("".join("#" if ink[y:y + step, x:x + step].any() else "." for x in range(0, ink.shape[1], step)))
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", help="a case directory or a .pgm file")
    ap.add_argument("--mask", help="write the ink mask here (PGM)")
    ap.add_argument("--ascii", action="store_true", help="print the ink mask")
    args = ap.parse_args(argv)
    path = Path(args.path)
    if path.is_dir():
        path = path / "form.pgm"
    img = read_pgm(path)
    ink = ink_mask(img)
    print(f"{path}: {page_stats(img, ink)}")
    layout = describe(ink)
    print(f"layout: scale {layout['scale']}, box {layout['box']}, {len(layout['bands'])} bands")
    reader = FormReader()
    clean = strip_rules(ink)
    rows = text_bands(clean)
    s = print_scale(rows)
    lines = []
    for y0, y1 in rows:
        if y1 - y0 < GLYPH_H * s - 2:
            print(f"  rows {y0}-{y1}: too short for scale {s}, skipped")
            continue
        text, cost = reader.read_band(clean, y0, y1, s)
        lines.append(text)
        print(f"  rows {y0}-{y1}: {text!r} (cost {cost})")
    fields = parse_fields(lines)
    print(f"fields: {fields}")
    for text in problems(fields):
        print(f"  ! {text}")
    if args.mask:
        write_pgm(args.mask, ink)
        print(f"mask written to {args.mask}")
    if args.ascii:
        print(ascii_mask(ink))


if __name__ == "__main__":
    main()
