"""RIFF/WAVE reader: integer PCM, any channel count, chunks in any order."""

import struct

import numpy as np

from .riff import RiffError, chunks, info_tags, open_riff

PCM = 1
EXTENSIBLE = 0xFFFE


class WavFormat:
    """The fields of a ``fmt `` chunk this reader uses."""

    def __init__(self, body):
        if len(body) < 16:
            raise RiffError("fmt chunk too short")
        self.codec, self.channels, self.rate, self.byte_rate, self.block, self.bits = struct.unpack(
            "<HHIIHH", body[:16])
        if self.codec == EXTENSIBLE and len(body) >= 26:
            (self.codec,) = struct.unpack("<H", body[24:26])

    def check(self):
        if self.codec != PCM:
            raise RiffError(f"codec {self.codec} is not integer PCM")
        if self.channels < 1 or self.block != self.channels * self.bits // 8:
            raise RiffError(f"inconsistent fmt: {self.channels} channels, block {self.block}, {self.bits} bits")
        if self.bits not in (8, 16):
            raise RiffError(f"{self.bits}-bit audio is not supported")

    def __repr__(self):
        return f"WavFormat({self.rate} Hz, {self.bits}-bit, {self.channels} ch)"


def samples(frames, fmt):
    """Interleaved PCM bytes -> array (frames, channels) of floats in -1..1."""
    n = len(frames) // fmt.block
    raw = frames[: n * fmt.block]
    if fmt.bits == 8:
        x = np.frombuffer(raw, dtype=np.int8).astype(float) / 128
    else:
        x = np.frombuffer(raw, dtype="<i2").astype(float) / 32768
    return x.reshape(n, fmt.channels)


def read_wav(path):
    """Return (rate, channels as float arrays in -1..1, INFO tags)."""
    data = open_riff(path)
    fmt, frames, info = None, None, {}
    for tag, _, body in chunks(data):
        if tag == b"fmt ":
            fmt = WavFormat(body)
        elif tag == b"data":
            frames = body
        elif tag == b"LIST":
            info.update(info_tags(body))
    if fmt is None or frames is None:
        raise RiffError(f"{path}: missing fmt or data chunk")
    fmt.check()
    x = samples(frames, fmt)
    return fmt.rate, [x[:, c] for c in range(fmt.channels)], info
