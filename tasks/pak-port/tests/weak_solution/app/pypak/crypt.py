"""The keyed scrambling of formats 2 and 3 (a linear congruential keystream)."""

from .checksums import fnv1a32

MASK32 = 0xFFFFFFFF


def password_check(key):
    return fnv1a32(key) & 0xFFFF


class Keystream:
    """One entry's keystream; format 3 continues it across the entry's blocks."""

    def __init__(self, key, index):
        self.state = fnv1a32(key) ^ index

    def xor(self, data):
        out = bytearray(len(data))
        state = self.state
        for pos, byte in enumerate(data):
            state = (state * 1664525 + 1013904223) & MASK32
            out[pos] = byte ^ (state & 0xFF)
        self.state = state
        return bytes(out)
