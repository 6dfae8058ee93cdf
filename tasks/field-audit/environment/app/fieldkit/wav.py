"""RIFF/WAVE reader: PCM 8/16-bit, any channel count, chunks in any order."""

import struct

import numpy as np


def read_wav(path):
    """Return (rate, channels as float arrays in -1..1, INFO tags)."""
    data = open(path, "rb").read()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError(f"{path}: not a RIFF/WAVE file")
    pos, fmt, frames, info = 12, None, None, {}
    while pos + 8 <= len(data):
        tag, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if tag == b"fmt ":
            fmt = struct.unpack("<HHIIHH", body[:16])
        elif tag == b"data":
            frames = body
        elif tag == b"LIST" and body[:4] == b"INFO":
            p = 4
            while p + 8 <= len(body):
                t, n = body[p:p + 4].decode("latin-1"), struct.unpack("<I", body[p + 4:p + 8])[0]
                info[t] = body[p + 8:p + 8 + n].split(b"\0")[0].decode("latin-1")
                p += 8 + n
        pos += 8 + size
    if fmt is None or frames is None:
        raise ValueError(f"{path}: missing fmt or data chunk")
    _, channels, rate, _, block, bits = fmt
    n = len(frames) // block
    if bits == 8:
        x = np.frombuffer(frames[: n * block], dtype=np.int8).astype(float) / 128
    elif bits == 16:
        x = np.frombuffer(frames[: n * block], dtype="<i2").astype(float) / 32768
    else:
        raise ValueError(f"{path}: {bits}-bit audio is not supported")
    x = x.reshape(n, channels)
    return rate, [x[:, c] for c in range(channels)], info
