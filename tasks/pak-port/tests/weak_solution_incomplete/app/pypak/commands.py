"""The four commands: create, list, extract, test."""

import os
import sys

from . import listing, reader, writer
from .entries import BAD_DATA, CRC_MISMATCH, OK, decode_entry
from .errors import EXIT_DATA, EXIT_FORMAT, EXIT_IO, EXIT_KEY, EXIT_UNSAFE, PakError
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
    raise PakError(EXIT_KEY, "keyed archives are not supported")
    if key is None:
        raise PakError(EXIT_KEY, "archive is encrypted (use -k)")
    if password_check(key) != archive.pwcheck:
        raise PakError(EXIT_KEY, "wrong password")


def member_name(arg):
    name = arg
    while name.startswith(b"./"):
        name = name[2:]
    return name.lstrip(b"/")


def create(options, archive_path, files):
    fmt = options.get("f", b"3")
    if fmt not in (b"1", b"2", b"3"):
        raise PakError(EXIT_FORMAT, "unsupported format '%s'" % fmt.decode("latin-1"))
    method_name = options.get("m", b"lz")
    methods = {b"store": 0, b"rle": 1, b"lz": 2}
    if method_name not in methods:
        raise PakError(EXIT_FORMAT, "unknown method '%s'" % method_name.decode("latin-1"))
    block_exp = 12
    if "b" in options:
        raw = options["b"]
        value = int(raw) if raw.isdigit() and len(raw) <= 6 else -1
        if value not in BLOCK_SIZES:
            raise PakError(EXIT_FORMAT, "bad block size '%s'" % raw.decode("latin-1"))
        block_exp = BLOCK_SIZES[value]
    version = int(fmt)
    method = methods[method_name]
    key = options.get("k")
    if version == 1 and method == 2:
        raise PakError(EXIT_FORMAT, "method lz needs format 2 or later")
    if version == 1 and key:
        raise PakError(EXIT_FORMAT, "format 1 cannot encrypt")
    if key:
        raise PakError(EXIT_FORMAT, "keys are not supported")
    members = []
    seen = set()
    for arg in files:
        shown = arg.decode("latin-1")
        name = member_name(arg)
        if not name:
            raise PakError(EXIT_FORMAT, "bad name '%s'" % shown)
        try:
            with open(arg, "rb") as handle:
                data = handle.read()
            info = os.stat(arg)
        except OSError:
            raise PakError(EXIT_IO, "cannot read %s" % shown) from None
        if version == 1 and len(name) > 255:
            raise PakError(EXIT_FORMAT, "name too long for format 1: %s" % display_name(name))
        if name in seen:
            raise PakError(EXIT_FORMAT, "duplicate name %s" % display_name(name))
        seen.add(name)
        members.append((name, data, (info.st_mtime_ns // 1000000000) & 0xFFFFFFFF, info.st_mode & 0o777))
    image, stats = writer.build(version, method, key, block_exp, members)
    try:
        with open(archive_path, "wb") as handle:
            handle.write(image)
    except OSError:
        raise PakError(EXIT_IO, "cannot write %s" % archive_path.decode("latin-1")) from None
    lines = ["a %s (%d -> %d)" % (display_name(name), size, packed)
             for (name, _, _, _), (size, packed) in zip(members, stats)]
    total = sum(size for size, _ in stats), sum(packed for _, packed in stats)
    lines.append("%d files, %d -> %d bytes" % (len(members), total[0], total[1]))
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
        lines.append("%s: %s" % (display_name(entry.name), status))
        if status == OK:
            good += 1
        else:
            bad += 1
    failed = bad > 0
    if archive.trailer_ok is not None:
        lines.append("archive checksum: %s" % ("OK" if archive.trailer_ok else "BAD"))
        failed = failed or not archive.trailer_ok
    lines.append("%d ok, %d bad" % (good, bad))
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_DATA if failed else 0


def unsafe(name):
    if not name or name.startswith(b"/") or b"\\" in name or b"\0" in name:
        return True
    return b".." in name.split(b"/")


def extract(options, path, target):
    archive = _load(path)
    key = options.get("k")
    _unlock(archive, key)
    status_code = 0
    written = 0
    os.makedirs(target, mode=0o755, exist_ok=True)
    for index, entry in enumerate(archive.entries):
        shown = display_name(entry.name)
        if unsafe(entry.name):
            warn("unsafe name skipped: %s" % shown)
            status_code = max(status_code, EXIT_UNSAFE)
            continue
        status, data = decode_entry(archive, index, key)
        if status == BAD_DATA:
            warn("corrupt data in %s" % shown)
            status_code = max(status_code, EXIT_DATA)
            continue
        if status == CRC_MISMATCH:
            warn("crc mismatch in %s" % shown)
            status_code = max(status_code, EXIT_DATA)
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
    if archive.trailer_ok is False:
        warn("archive checksum mismatch")
        status_code = max(status_code, EXIT_DATA)
    sys.stdout.write("extracted %d of %d entries\n" % (written, len(archive.entries)))
    return status_code
