"""Seeded DLG logger files and their expected CSV exports.

Format (the verifier's own encoder; see README.md for the summary):
header  b"DLGR", version u8, flags u8 (bit 0: big-endian), channels u8,
        interval_ms u16, start u32 (unix seconds)
channel name_len u8, name, type u8 (1 int16, 2 int32, 3 float32), scale f32,
        offset f32, decimals u8
block   tag u8, length u16, payload, crc32(payload) u32 (v2 only)
        0x01 RAW    first u32, rows u16, row-major values
        0x02 DELTA  first u32, rows u16, per channel: ints as zigzag LEB128
                    (first value, then differences), floats as rows x f32
        0x03 ZLIB   zlib-compressed sequence of inner blocks
        0x10 NOTE   utf-8 text;  0xFF END (length 0); other tags: skip
"""

import random
import struct
import zlib

NAMES = ["temp", "rh", "pressure", "wind", "vbat", "flow", "level", "co2", "solar", "soil"]
TYPES = {1: "h", 2: "i", 3: "f"}
RANGES = {1: 30000, 2: 2_000_000}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def channels(rng, count, kinds=(1, 2, 3)):
    out = []
    for name in rng.sample(NAMES, count):
        kind = rng.choice(kinds)
        if kind == 3:
            scale, decimals = 1.0, 3
        else:
            scale, decimals = rng.choice([(0.1, 1), (0.01, 2), (0.25, 2), (0.5, 1), (1.0, 0)])
        offset = rng.choice([0.0, 0.0, -40.0, 100.5, 1013.25])
        out.append({"name": name, "type": kind, "scale": f32(scale), "offset": f32(offset),
                    "decimals": decimals})
    return out


def column(rng, kind, n, big_jumps):
    if kind == 3:
        value = rng.uniform(-50, 50)
        out = []
        for _ in range(n):
            value += rng.gauss(0, 2)
            out.append(f32(value))
        return out
    limit = RANGES[kind]
    value = rng.randint(-limit // 4, limit // 4)
    out = []
    for _ in range(n):
        step = rng.randint(-60, 60)
        if big_jumps and rng.random() < 0.15:
            step = rng.randint(-limit // 2, limit // 2)
        value = max(-limit, min(limit, value + step))
        out.append(value)
    return out


def zigzag(v):
    return (v << 1) ^ (v >> 63)


def varint(u):
    out = bytearray()
    while True:
        byte = u & 0x7F
        u >>= 7
        if u:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


class Writer:
    def __init__(self, spec):
        self.spec = spec
        self.bo = ">" if spec["big_endian"] else "<"

    def pack(self, fmt, *values):
        return struct.pack(self.bo + fmt, *values)

    def header(self):
        s = self.spec
        out = b"DLGR" + bytes([s["version"], 1 if s["big_endian"] else 0, len(s["channels"])])
        out += self.pack("HI", s["interval_ms"], s["start"])
        for ch in s["channels"]:
            name = ch["name"].encode()
            out += bytes([len(name)]) + name + bytes([ch["type"]])
            out += self.pack("ffB", ch["scale"], ch["offset"], ch["decimals"])
        return out

    def frame(self, tag, payload, corrupt=False):
        out = bytes([tag]) + self.pack("H", len(payload))
        if self.spec["version"] == 2:
            crc = zlib.crc32(payload) & 0xFFFFFFFF
            if corrupt:
                spoiled = bytearray(payload)
                spoiled[len(spoiled) // 2] ^= 0x5A
                payload = bytes(spoiled)
            return out + payload + self.pack("I", crc)
        return out + payload

    def raw(self, first, rows):
        chans = self.spec["channels"]
        fmt = "".join(TYPES[c["type"]] for c in chans)
        out = self.pack("IH", first, len(rows))
        for row in rows:
            out += self.pack(fmt, *row)
        return out

    def delta(self, first, rows):
        out = self.pack("IH", first, len(rows))
        for j, ch in enumerate(self.spec["channels"]):
            values = [row[j] for row in rows]
            if ch["type"] == 3:
                out += b"".join(self.pack("f", v) for v in values)
                continue
            prev = 0
            for v in values:
                out += varint(zigzag(v - prev))
                prev = v
        return out


def build(seed, *, version=2, big_endian=False, n_rows=300, n_channels=3, kinds=(1, 2, 3),
          delta=True, zlib_groups=0, nested=False, notes=1, unknown=0, corrupt=0,
          shuffle=False, gaps=0, big_jumps=True, end=True):
    """Return (file bytes, expected CSV text, description)."""
    rng = random.Random(seed)
    spec = {"version": version, "big_endian": big_endian, "interval_ms": rng.choice([250, 500, 1000, 60000]),
            "start": rng.randint(1_600_000_000, 1_800_000_000),
            "channels": channels(rng, n_channels, kinds)}
    w = Writer(spec)
    cols = [column(rng, ch["type"], n_rows, big_jumps) for ch in spec["channels"]]
    rows = [tuple(col[i] for col in cols) for i in range(n_rows)]
    # sample indexes, with gaps
    index, indexes = 0, []
    for _ in range(n_rows):
        if gaps and rng.random() < gaps / n_rows:
            index += rng.randint(3, 40)
        indexes.append(index)
        index += 1
    # blocks of contiguous indexes
    blocks, i = [], 0
    while i < n_rows:
        size = rng.randint(5, 60)
        j = i + 1
        while j < min(n_rows, i + size) and indexes[j] == indexes[j - 1] + 1:
            j += 1
        blocks.append((indexes[i], rows[i:j], list(range(i, j))))
        i = j
    framed = []  # (bytes, row numbers it carries)
    for first, chunk, members in blocks:
        use_delta = delta and version == 2 and rng.random() < 0.6
        payload = w.delta(first, chunk) if use_delta else w.raw(first, chunk)
        framed.append([(0x02 if use_delta else 0x01), payload, members])
    keep = set(range(n_rows))
    # corrupt some plain blocks (their rows are lost)
    plain = list(range(len(framed)))
    rng.shuffle(plain)
    corrupted = set(plain[:corrupt])
    items = []
    for k, (tag, payload, members) in enumerate(framed):
        bad = k in corrupted
        if bad:
            keep -= set(members)
        items.append((w.frame(tag, payload, corrupt=bad), members))
    # wrap runs of blocks into zlib containers
    items = [(x, ms, False) for x, ms in items]
    for _ in range(zlib_groups):
        for _attempt in range(30):  # a run of blocks not already packed (unless nested)
            if len(items) < 3:
                break
            a = rng.randrange(len(items) - 2)
            b = min(len(items), a + rng.randint(2, 5))
            if not any(p for _, _, p in items[a:b]):
                break
        else:
            continue
        if len(items) < 3:
            break
        inner = b"".join(x for x, _, _ in items[a:b])
        members = [m for _, ms, _ in items[a:b] for m in ms]
        packed = w.frame(0x03, zlib.compress(inner))
        if nested:
            packed = w.frame(0x03, zlib.compress(packed + w.frame(0x10, b"nested")))
        items[a:b] = [(packed, members, True)]
    items = [(x, ms) for x, ms, _ in items]
    for _ in range(notes):
        text = rng.choice(["calibrated", "door opened", "battery swap", "maintenance: sensor 2 cleaned"])
        items.insert(rng.randint(0, len(items)), (w.frame(0x10, text.encode()), []))
    for _ in range(unknown):
        tag = rng.choice([0x04, 0x05, 0x11, 0x20, 0x42, 0x7E, 0x80, 0xA0])
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
        items.insert(rng.randint(0, len(items)), (w.frame(tag, junk), []))
    if shuffle:
        rng.shuffle(items)
    data = w.header() + b"".join(x for x, _ in items)
    if end:
        data += w.frame(0xFF, b"")
    return data, expected_csv(spec, rows, indexes, keep), spec


def fmt_value(ch, raw):
    return f"{raw * ch['scale'] + ch['offset']:.{ch['decimals']}f}"


def expected_csv(spec, rows, indexes, keep):
    chans = spec["channels"]
    lines = ["time_ms," + ",".join(c["name"] for c in chans)]
    for i in sorted(keep, key=lambda k: indexes[k]):
        t = spec["start"] * 1000 + indexes[i] * spec["interval_ms"]
        lines.append(str(t) + "," + ",".join(fmt_value(c, v) for c, v in zip(chans, rows[i])))
    return "\n".join(lines) + "\n"


def public_samples():
    """name -> (bytes, csv) for the bundled samples."""
    return {
        "v1_basic": build(101, version=1, n_rows=120, n_channels=2, kinds=(1, 2), delta=False,
                          notes=0, big_jumps=False, end=False)[:2],
        "v2_delta": build(202, n_rows=200, n_channels=3, notes=0)[:2],
        "v2_packed": build(303, n_rows=260, n_channels=4, zlib_groups=2, notes=2)[:2],
    }


HIDDEN_PER_SUBTASK = 20


def hidden_files(seed, count=HIDDEN_PER_SUBTASK):
    """{subtask: [(bytes, csv), ...]}: `count` files per subtask (each subtask's variants in
    turn), and one large file."""
    s = seed * 1000
    variants = {
        "v1_files": [lambda k: build(k, version=1, n_rows=150, n_channels=3, delta=False, notes=0, end=False)],
        "v2_mixed_blocks": [lambda k: build(k, n_rows=400, n_channels=4, zlib_groups=3, notes=2),
                            lambda k: build(k, n_rows=300, n_channels=5, zlib_groups=1)],
        "big_endian": [lambda k: build(k, version=1, big_endian=True, n_rows=120, delta=False, notes=0, end=False),
                       lambda k: build(k, big_endian=True, n_rows=300, n_channels=4, zlib_groups=2, notes=1)],
        "corrupt_blocks": [lambda k: build(k, n_rows=400, n_channels=3, corrupt=3),
                           lambda k: build(k, n_rows=300, n_channels=4, corrupt=2, zlib_groups=1)],
        "unknown_blocks": [lambda k: build(k, n_rows=300, n_channels=3, unknown=4)],
        "out_of_order_gaps": [lambda k: build(k, n_rows=400, n_channels=3, shuffle=True, gaps=5),
                              lambda k: build(k, n_rows=300, n_channels=3, gaps=4, zlib_groups=1)],
        "nested_zlib": [lambda k: build(k, n_rows=300, n_channels=3, zlib_groups=2, nested=True)],
    }
    files = {
        name: [makers[i % len(makers)](s + 50 * number + i)[:2] for i in range(count)]
        for number, (name, makers) in enumerate(variants.items())
    }
    files["large_file"] = [build(s + 999, n_rows=15000, n_channels=4, zlib_groups=15, notes=3,
                                 shuffle=True, corrupt=2, unknown=2, gaps=6)[:2]]
    return files
