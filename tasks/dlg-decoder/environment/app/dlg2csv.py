"""Convert DLG data-logger files to CSV.

Usage: python3 dlg2csv.py INPUT.dlg -o OUTPUT.csv

Only understands version 1 files so far (see docs/FORMAT.md).
"""

import argparse
import struct

TYPES = {1: "h", 2: "i", 3: "f"}


def read_header(data):
    if data[:4] != b"DLGR":
        raise ValueError("not a DLG file")
    version, flags, count = data[4], data[5], data[6]
    if version != 1:
        raise NotImplementedError(f"DLG version {version} is not supported yet")
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


def read_blocks(data, pos, header):
    fmt = "<" + "".join(TYPES[c["type"]] for c in header["channels"])
    size = struct.calcsize(fmt)
    rows = []
    while pos < len(data):
        tag = data[pos]
        (length,) = struct.unpack_from("<H", data, pos + 1)
        payload = data[pos + 3:pos + 3 + length]
        pos += 3 + length
        if tag == 0x01:
            first, count = struct.unpack_from("<IH", payload, 0)
            for i in range(count):
                rows.append((first + i, struct.unpack_from(fmt, payload, 6 + i * size)))
        else:
            raise ValueError(f"unknown block tag 0x{tag:02x} at offset {pos - 3 - length}")
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
