"""Netpbm greyscale reader (P2 and P5, any maxval)."""

import numpy as np


def _tokens(data, count, pos):
    out = []
    while len(out) < count:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            while pos < len(data) and data[pos:pos + 1] not in (b"\n", b"\r"):
                pos += 1
            continue
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace() and data[pos:pos + 1] != b"#":
            pos += 1
        out.append(data[start:pos])
    return out, pos


def read_pgm(path):
    """Return the image as a float array scaled to 0..255."""
    data = open(path, "rb").read()
    magic = data[:2]
    (w, h, maxval), pos = _tokens(data, 3, 2)
    w, h, maxval = int(w), int(h), int(maxval)
    if magic == b"P5":
        pos += 1
        dtype = np.uint8 if maxval < 256 else np.dtype(">u2")
        img = np.frombuffer(data, dtype=dtype, count=w * h, offset=pos).reshape(h, w)
    elif magic == b"P2":
        vals, _ = _tokens(data, w * h, pos)
        img = np.array([int(v) for v in vals]).reshape(h, w)
    else:
        raise ValueError(f"{path}: not a greyscale Netpbm file")
    return img.astype(float) * (255.0 / maxval)
