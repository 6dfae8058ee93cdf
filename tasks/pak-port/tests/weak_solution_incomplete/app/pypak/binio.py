"""Byte-level reading and writing with the offsets the legacy tool reports."""

import struct

from .errors import EXIT_FORMAT, PakError

MASK32 = 0xFFFFFFFF


class Reader:
    """Reads fields from an archive image; running past the end is a fatal error."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def remaining(self):
        return len(self.data) - self.pos

    def need(self, count):
        if self.pos + count > len(self.data):
            raise PakError(EXIT_FORMAT, "truncated archive at offset %d" % self.pos)

    def take(self, count):
        self.need(count)
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return chunk

    def u8(self):
        return self.take(1)[0]

    def u16le(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32le(self):
        return struct.unpack("<I", self.take(4))[0]

    def u16be(self):
        return struct.unpack(">H", self.take(2))[0]

    def u32be(self):
        return struct.unpack(">I", self.take(4))[0]

    def varint(self):
        """Unsigned LEB128, at most five bytes and 32 bits."""
        start = self.pos
        value = 0
        shift = 0
        for _ in range(5):
            byte = self.u8()
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                if value > MASK32:
                    break
                return value
        raise PakError(EXIT_FORMAT, "bad varint at offset %d" % start)


class Writer:
    """Accumulates an archive image."""

    def __init__(self):
        self.buf = bytearray()

    def bytes(self, data):
        self.buf += data

    def u8(self, value):
        self.buf.append(value & 0xFF)

    def u16le(self, value):
        self.buf += struct.pack("<H", value & 0xFFFF)

    def u32le(self, value):
        self.buf += struct.pack("<I", value & MASK32)

    def u16be(self, value):
        self.buf += struct.pack(">H", value & 0xFFFF)

    def u32be(self, value):
        self.buf += struct.pack(">I", value & MASK32)

    def varint(self, value):
        value &= MASK32
        while value >= 0x80:
            self.buf.append((value & 0x7F) | 0x80)
            value >>= 7
        self.buf.append(value)

    def getvalue(self):
        return bytes(self.buf)
