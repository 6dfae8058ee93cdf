"""Debugging aid: dump an archive's structure as the port understands it.

    python3 -m pypak.inspect ARCHIVE [--payload]

Prints the header, every entry's fields with their offsets, and (with
``--payload``) a hex dump of each payload's first bytes. It uses the same
reader as the port, so it is only as right as the reader is.
"""

import sys

from . import reader
from .errors import PakError
from .model import METHODS, display_name


def hexdump(data, width=16, limit=256):
    lines = []
    for start in range(0, min(len(data), limit), width):
        chunk = data[start:start + width]
        hexes = " ".join("%02x" % b for b in chunk)
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append("    %06x  %-*s  %s" % (start, width * 3 - 1, hexes, text))
    if len(data) > limit:
        lines.append("    ... %d more bytes" % (len(data) - limit))
    return "\n".join(lines)


def describe(archive, payloads=False):
    out = ["format %d  flags 0x%02x  entries %d" % (archive.version, archive.flags,
                                                     len(archive.entries))]
    if archive.version == 3:
        out.append("block size %d" % archive.block_size)
    if archive.pwcheck is not None:
        out.append("password check %04x" % archive.pwcheck)
    for index, entry in enumerate(archive.entries):
        out.append("#%d %s" % (index, display_name(entry.name)))
        out.append("    size %d  packed %d  check %08x" % (entry.size, entry.packed(), entry.check))
        if entry.mtime is not None:
            out.append("    mtime %d  mode %o" % (entry.mtime, entry.mode))
        if entry.blocks is None:
            out.append("    method %s" % METHODS.get(entry.method, entry.method))
            if payloads:
                out.append(hexdump(entry.payload))
        else:
            for number, (method, payload) in enumerate(entry.blocks):
                out.append("    block %d: %s, %d bytes" % (number, METHODS.get(method, method),
                                                          len(payload)))
                if payloads:
                    out.append(hexdump(payload))
    if archive.trailer_ok is not None:
        out.append("trailer %s" % ("ok" if archive.trailer_ok else "BAD"))
    if archive.trailing:
        out.append("%d trailing bytes" % archive.trailing)
    return "\n".join(out)


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if not args:
        sys.stderr.write("usage: python3 -m pypak.inspect ARCHIVE [--payload]\n")
        return 64
    with open(args[0], "rb") as handle:
        data = handle.read()
    try:
        archive = reader.parse(data, lambda message: sys.stderr.write(message + "\n"))
    except PakError as exc:
        sys.stderr.write("error: %s\n" % exc.message)
        return exc.code
    print(describe(archive, payloads="--payload" in args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
