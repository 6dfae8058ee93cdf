"""Command line of the pak tool: ``pak c|l|x|t [options] operands``."""

import os
import sys

from . import commands
from .errors import EXIT_USAGE, PakError

USAGE = """usage: pak c [-f 1|2|3] [-m store|rle|lz] [-k KEY] [-b SIZE] ARCHIVE FILE...
       pak l ARCHIVE
       pak x [-k KEY] ARCHIVE DIR
       pak t [-k KEY] ARCHIVE
"""

OPTIONS = {b"c": b"fmkb", b"l": b"", b"x": b"k", b"t": b"k"}


def _usage():
    sys.stderr.write(USAGE)
    return EXIT_USAGE


def parse(argv):
    """(command, options, operands) or an exit status for a usage error."""
    if not argv or argv[0] not in OPTIONS:
        return _usage()
    command = argv[0]
    allowed = OPTIONS[command]
    options = {}
    i = 1
    while i < len(argv) and argv[i].startswith(b"-") and argv[i] != b"-":
        if argv[i] == b"--":
            i += 1
            break
        opt = argv[i]
        if len(opt) != 2 or opt[1:] not in allowed or not opt[1:].isalpha():
            sys.stderr.write("pak: unknown option %s\n" % opt.decode("latin-1"))
            return EXIT_USAGE
        if i + 1 >= len(argv):
            sys.stderr.write("pak: option %s needs a value\n" % opt.decode("latin-1"))
            return EXIT_USAGE
        options[opt[1:].decode()] = argv[i + 1]
        i += 2
    operands = argv[i:]
    wanted = {b"c": None, b"l": 1, b"x": 2, b"t": 1}[command]
    if (wanted is None and len(operands) < 2) or (wanted is not None and len(operands) != wanted):
        return _usage()
    if options.get("k") == b"":
        sys.stderr.write("pak: empty key\n")
        return EXIT_USAGE
    return command, options, operands


def run(argv):
    parsed = parse(argv)
    if isinstance(parsed, int):
        return parsed
    command, options, operands = parsed
    try:
        if command == b"c":
            return commands.create(options, operands[0], operands[1:])
        if command == b"l":
            return commands.list_archive(options, operands[0])
        if command == b"x":
            return commands.extract(options, operands[0], operands[1])
        return commands.test(options, operands[0])
    except PakError as exc:
        sys.stdout.flush()
        sys.stderr.write("pak: %s\n" % exc.message)
        return exc.code


def main(argv=None):
    args = [os.fsencode(a) for a in (sys.argv[1:] if argv is None else argv)]
    status = run(args)
    sys.stdout.flush()
    return status
