"""Compressing and decompressing payloads by method number."""

from . import lz, rle
from .errors import BadData


def compress(method, data):
    if method == 1:
        return rle.encode(data)
    if method == 2:
        return lz.encode(data)
    return bytes(data)


def decompress(method, payload, size):
    if method == 1:
        return rle.decode(payload, size)
    if method == 2:
        return lz.decode(payload, size)
    if len(payload) != size:
        raise BadData("stored length")
    return bytes(payload)
