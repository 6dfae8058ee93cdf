"""Building archive images of formats 1, 2 and 3."""

from . import codec
from .binio import Writer
from .checksums import crc16, crc32, sum16
from .crypt import Keystream, password_check


def _pack(method, data, strict):
    """Compress; fall back to storing when it does not pay (strict: also when equal)."""
    packed = codec.compress(method, data)
    if method and (len(packed) >= len(data) if strict else len(packed) > len(data)):
        return 0, bytes(data)
    return method, packed


def build(version, method, key, block_exp, members):
    """``members``: (name, data, mtime, mode) tuples. Returns (image, [(size, packed)])."""
    out = Writer()
    out.bytes(b"PAK")
    out.u8(version)
    flags = 1 if key else 0
    stats = []
    if version == 1:
        out.u16le(len(members))
    elif version == 2:
        out.u8(flags)
        out.u32le(len(members))
        if key:
            out.u16le(password_check(key))
    else:
        from .errors import EXIT_FORMAT, PakError
        raise PakError(EXIT_FORMAT, "format 3 is not supported")
        out.u8(flags)
        out.u8(block_exp)
        out.varint(len(members))
        if key:
            out.u16be(password_check(key))
    for index, (name, data, mtime, mode) in enumerate(members):
        if version == 3:
            stats.append(_member_v3(out, index, name, data, mtime, mode, method, key, block_exp))
            continue
        used, payload = _pack(method, data, strict=False)
        if key:
            payload = Keystream(key, index).xor(payload)
        if version == 1:
            out.u8(len(name))
            out.bytes(name)
            out.u8(used)
            out.u32le(len(data))
            out.u32le(len(payload))
            out.u16le(sum16(data))
        else:
            out.u16le(len(name))
            out.bytes(name)
            out.u32le(mtime)
            out.u16le(mode)
            out.u8(used)
            out.u32le(len(data))
            out.u32le(len(payload))
            out.u32le(crc32(data))
        out.bytes(payload)
        stats.append((len(data), len(payload)))
    if version == 2:
        body = out.getvalue()
        out.bytes(b"END!")
        out.u32le(crc32(body))
    elif version == 3:
        body = out.getvalue()
        out.bytes(b"END3")
        out.u32be(crc32(body))
    return out.getvalue(), stats


def _member_v3(out, index, name, data, mtime, mode, method, key, block_exp):
    header = Writer()
    header.varint(len(name))
    header.bytes(name)
    header.varint(mtime)
    header.u16be(mode)
    header.varint(len(data))
    header.u32be(crc32(data))
    raw = header.getvalue()
    out.bytes(raw)
    out.u16be(crc16(raw))
    stream = Keystream(key, index) if key else None
    size = 1 << block_exp
    packed_total = 0
    for start in range(0, len(data), size):
        used, payload = _pack(method, data[start:start + size], strict=True)
        if stream is not None:
            payload = stream.xor(payload)
        out.u8(used)
        out.varint(len(payload))
        out.bytes(payload)
        packed_total += len(payload)
    return len(data), packed_total
