"""Command line of the pak tool: ``pak c|l|x|t [options] operands``.

Mirrors the legacy binary's command line (see docs/NOTES.md): one-letter
commands, short options, then operands.
"""

import argparse
import os
import sys

from . import commands
from .errors import PakError


def build_parser():
    parser = argparse.ArgumentParser(prog="pak", description="batch archiver")
    sub = parser.add_subparsers(dest="command", required=True)
    create = sub.add_parser("c", help="create an archive")
    create.add_argument("-f", dest="f", default="2", help="format 1, 2 or 3")
    create.add_argument("-m", dest="m", default="lz", help="store, rle or lz")
    create.add_argument("-k", dest="k", help="key (formats 2 and 3)")
    create.add_argument("-b", dest="b", help="block size (format 3)")
    create.add_argument("archive")
    create.add_argument("files", nargs="+")
    listing = sub.add_parser("l", help="list an archive")
    listing.add_argument("archive")
    extract = sub.add_parser("x", help="extract an archive")
    extract.add_argument("-k", dest="k")
    extract.add_argument("archive")
    extract.add_argument("dest")
    test = sub.add_parser("t", help="test an archive")
    test.add_argument("-k", dest="k")
    test.add_argument("archive")
    return parser


def run(argv):
    args = build_parser().parse_args(argv)
    options = {}
    for name in ("f", "m", "k", "b"):
        value = getattr(args, name, None)
        if value is not None:
            options[name] = os.fsencode(value)
    archive = os.fsencode(args.archive)
    try:
        if args.command == "c":
            return commands.create(options, archive, [os.fsencode(f) for f in args.files])
        if args.command == "l":
            return commands.list_archive(options, archive)
        if args.command == "x":
            return commands.extract(options, archive, os.fsencode(args.dest))
        return commands.test(options, archive)
    except PakError as exc:
        sys.stderr.write("pak: %s\n" % exc.message)
        return exc.code


def main(argv=None):
    status = run(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    return status
