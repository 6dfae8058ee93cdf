"""Weak baseline (public checks only), installed as /app/dlg2csv.py.

Decodes what the three samples show: v1 and v2 little-endian files, RAW,
DELTA, one level of ZLIB and NOTE blocks. It skips the 4 checksum bytes
without checking them, ignores the byte-order flag, stops on unknown tags and
keeps blocks in file order."""

import argparse
import struct
import zlib

TYPES = {1: "h", 2: "i", 3: "f"}


def read_header(data):
    if data[:4] != b"DLGR":
        raise ValueError("not a DLG file")
    version, flags, count = data[4], data[5], data[6]
    interval, start = struct.unpack_from("<HI", data, 7)
    pos = 13
    channels = []
    for _ in range(count):
        size = data[pos]
        name = data[pos + 1:pos + 1 + size].decode("ascii")
        pos += 1 + size
        kind = data[pos]
        scale, offset, decimals = struct.unpack_from("<ffB", data, pos + 1)
        pos += 10
        channels.append({"name": name, "type": kind, "scale": scale, "offset": offset,
                         "decimals": decimals})
    return {"version": version, "flags": flags, "interval_ms": interval, "start": start,
            "channels": channels}, pos


def varint(buf, pos):
    u = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        u |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return (u >> 1) ^ -(u & 1), pos


def decode_payload(tag, payload, header, rows):
    chans = header["channels"]
    fmt = "<" + "".join(TYPES[c["type"]] for c in chans)
    size = struct.calcsize(fmt)
    first, count = struct.unpack_from("<IH", payload, 0)
    if tag == 0x01:
        for i in range(count):
            rows.append((first + i, struct.unpack_from(fmt, payload, 6 + i * size)))
        return
    pos, cols = 6, []
    for c in chans:
        if c["type"] == 3:
            cols.append(struct.unpack_from("<%df" % count, payload, pos))
            pos += 4 * count
        else:
            vals, prev = [], 0
            for _ in range(count):
                d, pos = varint(payload, pos)
                prev += d
                vals.append(prev)
            cols.append(vals)
    for i, row in enumerate(zip(*cols)):
        rows.append((first + i, row))


def read_blocks(data, pos, header, top=True):
    extra = 4 if header["version"] == 2 else 0
    rows = []
    while pos < len(data):
        tag = data[pos]
        (length,) = struct.unpack_from("<H", data, pos + 1)
        payload = data[pos + 3:pos + 3 + length]
        pos += 3 + length + extra
        if tag in (0x01, 0x02):
            decode_payload(tag, payload, header, rows)
        elif tag == 0x03 and top:
            rows.extend(read_blocks(zlib.decompress(payload), 0, header, top=False))
        elif tag == 0x10:
            continue
        elif tag == 0xFF:
            break
        else:
            raise ValueError(f"unknown block tag 0x{tag:02x}")
    return rows


def to_csv(header, rows):
    chans = header["channels"]
    lines = ["time_ms," + ",".join(c["name"] for c in chans)]
    for index, values in rows:
        t = header["start"] * 1000 + index * header["interval_ms"]
        cells = [f"{v * c['scale'] + c['offset']:.{c['decimals']}f}" for c, v in zip(chans, values)]
        lines.append(str(t) + "," + ",".join(cells))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.input, "rb") as handle:
        data = handle.read()
    header, pos = read_header(data)
    rows = read_blocks(data, pos, header)
    with open(args.output, "w") as handle:
        handle.write(to_csv(header, rows))


if __name__ == "__main__":
    main()
