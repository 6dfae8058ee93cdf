"""The four commands: create, list, extract, test."""

import os
import sys

from . import listing, reader, writer
from .entries import OK, decode_entry
from .errors import EXIT_DATA, EXIT_FORMAT, EXIT_IO, EXIT_KEY, PakError
from .model import display_name
from .crypt import password_check

BLOCK_SIZES = {1 << e: e for e in range(9, 17)}


def warn(message):
    sys.stderr.write("pak: %s\n" % message)


def _load(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        raise PakError(EXIT_IO, "cannot open %s" % path) from None
    return reader.parse(data, warn)


def _unlock(archive, key):
    if not archive.encrypted:
        return
    if key is None:
        raise PakError(EXIT_KEY, "archive is encrypted (use -k)")
    if password_check(key) != archive.pwcheck:
        raise PakError(EXIT_KEY, "bad key")


def member_name(arg):
    name = arg
    while name.startswith(b"./"):
        name = name[2:]
    return name.lstrip(b"/")


def create(options, archive_path, files):
    fmt = options.get("f", b"2")
    if fmt not in (b"1", b"2", b"3"):
        raise PakError(EXIT_FORMAT, "bad format %s" % fmt.decode("latin-1"))
    method_name = options.get("m", b"lz")
    methods = {b"store": 0, b"rle": 1, b"lz": 2}
    if method_name not in methods:
        raise PakError(EXIT_FORMAT, "unsupported method %s" % method_name.decode("latin-1"))
    block_exp = 12
    if options.get("b"):
        block_exp = BLOCK_SIZES.get(int(options["b"]), 12)
    version = int(fmt)
    method = methods[method_name]
    key = options.get("k")
    if version == 1 and (method == 2 or key):
        raise PakError(EXIT_FORMAT, "format 1 supports neither lz nor keys")
    members = []
    seen = set()
    for arg in files:
        shown = arg.decode("latin-1")
        name = member_name(arg)
        try:
            with open(arg, "rb") as handle:
                data = handle.read()
            info = os.stat(arg)
        except OSError:
            raise PakError(EXIT_IO, "cannot read input file %s" % shown) from None
        if version == 1 and len(name) > 255:
            raise PakError(EXIT_FORMAT, "name too long for format 1: %s" % display_name(name))
        seen.add(name)
        members.append((name, data, int(info.st_mtime), info.st_mode & 0o777))
    image, stats = writer.build(version, method, key, block_exp, members)
    try:
        with open(archive_path, "wb") as handle:
            handle.write(image)
    except OSError:
        raise PakError(EXIT_IO, "cannot write %s" % archive_path.decode("latin-1")) from None
    lines = ["added %s (%d -> %d)" % (display_name(name), size, packed)
             for (name, _, _, _), (size, packed) in zip(members, stats)]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def list_archive(options, path):
    archive = _load(path)
    sys.stdout.write(listing.render(path.decode("latin-1"), archive))
    return 0


def test(options, path):
    archive = _load(path)
    _unlock(archive, options.get("k"))
    good = bad = 0
    lines = []
    for index, entry in enumerate(archive.entries):
        status, _ = decode_entry(archive, index, options.get("k"))
        lines.append("%-40s %s" % (display_name(entry.name), status))
        if status == OK:
            good += 1
        else:
            bad += 1
    failed = bad > 0
    lines.append("%d entries tested, %d bad" % (good + bad, bad))
    sys.stdout.write("\n".join(lines) + "\n")
    return 1 if failed else 0


def extract(options, path, target):
    archive = _load(path)
    key = options.get("k")
    _unlock(archive, key)
    status_code = 0
    written = 0
    os.makedirs(target, mode=0o755, exist_ok=True)
    for index, entry in enumerate(archive.entries):
        shown = display_name(entry.name)
        status, data = decode_entry(archive, index, key)
        if status != OK:
            warn("%s: %s" % (shown, status.lower()))
            status_code = EXIT_DATA
            continue
        destination = os.path.join(target, entry.name)
        try:
            parent = os.path.dirname(destination)
            if parent:
                os.makedirs(parent, mode=0o755, exist_ok=True)
            with open(destination, "wb") as handle:
                handle.write(data)
            os.chmod(destination, 0o644 if entry.mode is None else entry.mode & 0o777)
        except OSError:
            warn("cannot write %s" % shown)
            status_code = max(status_code, EXIT_IO)
            continue
        written += 1
    sys.stdout.write("%d files extracted\n" % written)
    return status_code
