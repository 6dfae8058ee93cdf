"""Decoding and checking one entry's data."""

from .checksums import crc32, sum16
from .codec import decompress
from .crypt import Keystream
from .errors import BadData

OK = "OK"
CRC_MISMATCH = "CRC MISMATCH"
BAD_DATA = "BAD DATA"


def decode_entry(archive, index, key):
    """(status, data): data is None when the payload cannot be decoded."""
    entry = archive.entries[index]
    stream = Keystream(key, index) if archive.encrypted else None
    try:
        if entry.blocks is None:
            payload = stream.xor(entry.payload) if stream else entry.payload
            data = decompress(entry.method, payload, entry.size)
        else:
            parts = []
            left = entry.size
            for method, payload in entry.blocks:
                want = min(archive.block_size, left)
                if stream:
                    payload = stream.xor(payload)
                parts.append(decompress(method, payload, want))
                left -= want
            data = b"".join(parts)
    except BadData:
        return BAD_DATA, None
    check = sum16(data) if archive.version == 1 else crc32(data)
    return (OK if check == entry.check else CRC_MISMATCH), data
