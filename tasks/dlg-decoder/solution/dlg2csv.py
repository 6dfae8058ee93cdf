"""Convert DLG data-logger files (v1 and v2) to CSV.

Usage: python3 dlg2csv.py INPUT.dlg -o OUTPUT.csv
"""

import argparse
import struct
import sys
import zlib

TYPES = {1: ("h", 2), 2: ("i", 4), 3: ("f", 4)}


class Decoder:
    def __init__(self, data):
        if data[:4] != b"DLGR":
            raise ValueError("not a DLG file")
        self.data = data
        self.version, flags, count = data[4], data[5], data[6]
        self.bo = ">" if flags & 1 else "<"
        self.interval, self.start = struct.unpack_from(self.bo + "HI", data, 7)
        pos = 13
        self.channels = []
        for _ in range(count):
            size = data[pos]
            name = data[pos + 1:pos + 1 + size].decode("ascii")
            pos += 1 + size
            kind = data[pos]
            scale, offset, decimals = struct.unpack_from(self.bo + "ffB", data, pos + 1)
            pos += 10
            self.channels.append((name, kind, scale, offset, decimals))
        self.body = pos
        self.rows = {}
        self.bad_blocks = 0
        self.row_fmt = self.bo + "".join(TYPES[c[1]][0] for c in self.channels)
        self.row_size = struct.calcsize(self.row_fmt)

    def blocks(self, buf, pos=0):
        crc_size = 4 if self.version >= 2 else 0
        while pos + 3 <= len(buf):
            tag = buf[pos]
            (length,) = struct.unpack_from(self.bo + "H", buf, pos + 1)
            payload = buf[pos + 3:pos + 3 + length]
            end = pos + 3 + length + crc_size
            if end > len(buf):
                break  # truncated
            pos = end
            if crc_size:
                (crc,) = struct.unpack_from(self.bo + "I", buf, end - 4)
                if zlib.crc32(payload) & 0xFFFFFFFF != crc:
                    self.bad_blocks += 1
                    continue
            if tag == 0xFF:
                break
            yield tag, payload

    def walk(self, buf):
        for tag, payload in self.blocks(buf):
            if tag == 0x01:
                self.raw(payload)
            elif tag == 0x02:
                self.delta(payload)
            elif tag == 0x03:
                self.walk(zlib.decompress(payload))

    def raw(self, payload):
        first, count = struct.unpack_from(self.bo + "IH", payload, 0)
        for i, row in enumerate(struct.iter_unpack(self.row_fmt, payload[6:6 + count * self.row_size])):
            self.rows[first + i] = row

    def delta(self, payload):
        first, count = struct.unpack_from(self.bo + "IH", payload, 0)
        pos = 6
        columns = []
        for _, kind, *_ in self.channels:
            if kind == 3:
                columns.append(struct.unpack_from(self.bo + "%df" % count, payload, pos))
                pos += 4 * count
                continue
            values, prev = [], 0
            for _ in range(count):
                u = shift = 0
                while True:
                    byte = payload[pos]
                    pos += 1
                    u |= (byte & 0x7F) << shift
                    shift += 7
                    if not byte & 0x80:
                        break
                prev += (u >> 1) ^ -(u & 1)
                values.append(prev)
            columns.append(values)
        for i, row in enumerate(zip(*columns)):
            self.rows[first + i] = row

    def csv(self):
        self.walk(self.data[self.body:])
        lines = ["time_ms," + ",".join(c[0] for c in self.channels)]
        fmts = [(scale, offset, "%%.%df" % decimals) for _, _, scale, offset, decimals in self.channels]
        base = self.start * 1000
        for index in sorted(self.rows):
            row = self.rows[index]
            lines.append(str(base + index * self.interval) + "," + ",".join(
                f % (v * s + o) for v, (s, o, f) in zip(row, fmts)))
        return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.input, "rb") as handle:
        decoder = Decoder(handle.read())
    text = decoder.csv()
    with open(args.output, "w") as handle:
        handle.write(text)
    if decoder.bad_blocks:
        print(f"dropped {decoder.bad_blocks} block(s) with a bad checksum", file=sys.stderr)


if __name__ == "__main__":
    main()
