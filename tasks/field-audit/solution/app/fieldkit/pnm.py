"""Netpbm greyscale reader (and a writer, for debugging dumps)."""

import re
from pathlib import Path

import numpy as np


class PnmError(ValueError):
    """A file that is not a greyscale Netpbm image this reader handles."""


def _tokens(data, count, pos):
    """``count`` whitespace-separated header tokens from ``pos``, skipping # comments."""
    out = []
    while len(out) < count:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        if pos >= len(data):
            raise PnmError("truncated header")
        if data[pos:pos + 1] == b"#":
            while pos < len(data) and data[pos:pos + 1] not in (b"\n", b"\r"):
                pos += 1
            continue
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace() and data[pos:pos + 1] != b"#":
            pos += 1
        out.append(data[start:pos])
    return out, pos


def read_header(data):
    """(magic, width, height, maxval, offset of the raster)."""
    magic = data[:2]
    if magic not in (b"P2", b"P5"):
        raise PnmError(f"not a greyscale Netpbm file (magic {magic!r})")
    (w, h, maxval), pos = _tokens(data, 3, 2)
    try:
        w, h, maxval = int(w), int(h), int(maxval)
    except ValueError as exc:
        raise PnmError(f"bad header: {exc}") from None
    if w <= 0 or h <= 0 or not 0 < maxval < 65536:
        raise PnmError(f"bad header: {w}x{h}, maxval {maxval}")
    return magic, w, h, maxval, pos


def read_pgm(path):
    """Return the image as a float array scaled to 0..255."""
    data = Path(path).read_bytes()
    magic, w, h, maxval, pos = read_header(data)
    if magic == b"P5":
        pos += 1
        dtype = np.dtype(np.uint8) if maxval < 256 else np.dtype(">u2")
        if len(data) - pos < w * h * dtype.itemsize:
            raise PnmError(f"{path}: raster shorter than {w}x{h}")
        img = np.frombuffer(data, dtype=dtype, count=w * h, offset=pos).reshape(h, w)
    else:
        raster = re.sub(rb"#[^\r\n]*", b" ", data[pos:]).split()
        if len(raster) < w * h:
            raise PnmError(f"{path}: raster shorter than {w}x{h}")
        img = np.array(raster[: w * h], dtype=np.int64).reshape(h, w)
    return img.astype(float) * (255.0 / maxval)


def write_pgm(path, img):
    """Write a 0..255 array (or a boolean mask, ink black) as binary P5."""
    img = np.asarray(img)
    if img.dtype == bool:
        img = np.where(img, 0, 255)
    img = np.clip(np.round(img), 0, 255).astype(np.uint8)
    h, w = img.shape
    Path(path).write_bytes(f"P5\n{w} {h}\n255\n".encode() + img.tobytes())
