"""The dictionary method (method 2): LZSS with 8-token flag bytes, 4 KiB window."""

from .errors import BadData

WINDOW = 4096
MIN_MATCH = 3
MAX_MATCH = 18
HASH_SIZE = 4096
MAX_CHAIN = 32


def _hash(data, i):
    return ((data[i] << 8) ^ (data[i + 1] << 4) ^ data[i + 2]) & (HASH_SIZE - 1)


def encode(data):
    n = len(data)
    out = bytearray()
    head = [-1] * HASH_SIZE
    prev = [-1] * n
    flag_at = 0
    bit = 8

    def insert(p):
        if p + 2 < n:
            h = _hash(data, p)
            prev[p] = head[h]
            head[h] = p

    i = 0
    while i < n:
        if bit == 8:
            flag_at = len(out)
            out.append(0)
            bit = 0
        best_len = 0
        best_off = 0
        if i + 2 < n:
            limit = min(MAX_MATCH, n - i)
            cand = head[_hash(data, i)]
            chain = 0
            while cand >= 0 and chain < MAX_CHAIN:
                off = i - cand
                if off > WINDOW:
                    break
                length = 0
                while length < limit and data[cand + length] == data[i + length]:
                    length += 1
                if length > best_len:
                    best_len = length
                    best_off = off
                    if length == limit:
                        break
                cand = prev[cand]
                chain += 1
        if best_len >= MIN_MATCH:
            out.append((best_off - 1) & 0xFF)
            out.append((((best_off - 1) >> 8) << 4) | (best_len - MIN_MATCH))
            for p in range(i, i + best_len):
                insert(p)
            i += best_len
        else:
            out[flag_at] |= 1 << bit
            out.append(data[i])
            insert(i)
            i += 1
        bit += 1
    return bytes(out)


def decode(data, size):
    out = bytearray()
    n = len(data)
    i = 0
    while len(out) < size:
        if i >= n:
            raise BadData("stream ends early")
        flags = data[i]
        i += 1
        for bit in range(8):
            if len(out) >= size:
                break
            if flags >> bit & 1:
                if i >= n:
                    raise BadData("stream ends early")
                out.append(data[i])
                i += 1
                continue
            if i + 1 >= n:
                raise BadData("stream ends early")
            b0, b1 = data[i], data[i + 1]
            i += 2
            off = (b0 | ((b1 >> 4) << 8)) + 1
            length = (b1 & 0x0F) + MIN_MATCH
            if off > len(out) or len(out) + length > size:
                raise BadData("bad match")
            for _ in range(length):
                out.append(out[-off])
    return bytes(out)
