"""Parsing archive images of formats 1, 2 and 3."""

from .binio import Reader
from .checksums import crc16, crc32
from .errors import EXIT_FORMAT, PakError
from .model import MAX_ENTRY_SIZE, METHODS, Archive, Entry, display_name

MAGIC = b"PAK"


def _method(value, name):
    if value not in METHODS:
        raise PakError(EXIT_FORMAT, "unknown method %d in %s" % (value, display_name(name)))
    return value


def _size(value, name):
    if value > MAX_ENTRY_SIZE:
        raise PakError(EXIT_FORMAT, "member too large: %s" % display_name(name))
    return value


def _flags(reader):
    return reader.u8()


def _v1(reader, archive):
    count = reader.u16le()
    for _ in range(count):
        entry = Entry(reader.take(reader.u8()))
        entry.method = _method(reader.u8(), entry.name)
        entry.size = _size(reader.u32le(), entry.name)
        csize = reader.u32le()
        entry.check = reader.u16le()
        entry.payload = reader.take(csize)
        archive.entries.append(entry)


def _v2(reader, archive):
    archive.flags = _flags(reader)
    count = reader.u32le()
    if archive.encrypted:
        archive.pwcheck = reader.u16le()
    for _ in range(count):
        entry = Entry(reader.take(reader.u16le()))
        entry.mode = reader.u16le()
        entry.mtime = reader.u32le()
        entry.method = _method(reader.u8(), entry.name)
        entry.size = _size(reader.u32le(), entry.name)
        csize = reader.u32le()
        entry.check = reader.u32le()
        entry.payload = reader.take(csize)
        archive.entries.append(entry)


def _v3(reader, archive):
    # TODO(2019): format 3 is what the tool writes by default now. Half done:
    # the block list is not understood yet.
    raise PakError(EXIT_FORMAT, "format 3 is not supported yet")
    archive.flags = _flags(reader)
    exp = reader.u8()
    if not 9 <= exp <= 16:
        raise PakError(EXIT_FORMAT, "bad block size exponent %d" % exp)
    archive.block_exp = exp
    count = reader.varint()
    if archive.encrypted:
        archive.pwcheck = reader.u16be()
    for _ in range(count):
        start = reader.pos
        entry = Entry(reader.take(reader.varint()))
        entry.mtime = reader.varint()
        entry.mode = reader.u16be()
        entry.size = reader.varint()
        entry.check = reader.u32be()
        stored = reader.u16be()
        if crc16(reader.data[start:reader.pos - 2]) != stored:
            raise PakError(EXIT_FORMAT, "damaged header at offset %d" % start)
        _size(entry.size, entry.name)
        entry.blocks = []
        nblocks = (entry.size + archive.block_size - 1) >> exp
        for _ in range(nblocks):
            method = _method(reader.u8(), entry.name)
            entry.blocks.append((method, reader.take(reader.varint())))
        archive.entries.append(entry)


def _trailer(reader, archive, magic, read32):
    end = reader.pos
    if reader.data[end:end + 4] != magic:
        raise PakError(EXIT_FORMAT, "bad trailer")
    reader.pos += 4
    stored = read32()
    archive.trailer_ok = crc32(reader.data[4:end]) == stored


def parse(data, warn):
    """Parse a whole archive image; ``warn(message)`` receives non-fatal warnings."""
    if len(data) < 4 or data[:3] != MAGIC:
        raise PakError(EXIT_FORMAT, "bad magic")
    version = data[3]
    if version not in (1, 2, 3):
        raise PakError(EXIT_FORMAT, "unknown format version %d" % version)
    archive = Archive(version)
    reader = Reader(data)
    reader.pos = 4
    if version == 1:
        _v1(reader, archive)
    elif version == 2:
        _v2(reader, archive)
        _trailer(reader, archive, b"END!", reader.u32le)
    else:
        _v3(reader, archive)
        _trailer(reader, archive, b"END3", reader.u32be)
    archive.trailing = reader.remaining()
    if archive.trailing:
        raise PakError(EXIT_FORMAT, "garbage after archive")
    return archive
