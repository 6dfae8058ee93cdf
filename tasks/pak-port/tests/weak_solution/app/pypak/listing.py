"""The ``l`` command's table."""

import time

from .model import METHODS, display_name


def ratio(size, packed):
    """Space saved, one decimal, as the legacy tool prints it (C division)."""
    if size == 0:
        return "-"
    per_mille = _cdiv((size - packed) * 1000, size)
    whole = _cdiv(per_mille, 10)
    return "%d.%d%%" % (whole, abs(per_mille - whole * 10))


def _cdiv(a, b):
    """Integer division truncating toward zero, as C does."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def method_label(entry):
    if entry.blocks is None:
        return METHODS[entry.method]
    if not entry.blocks:
        return "-"
    first = entry.blocks[0][0]
    label = METHODS[first]
    if any(method != first for method, _ in entry.blocks):
        label += "*"
    return label


def modified(entry):
    if entry.mtime is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(entry.mtime))


def check_label(archive, entry):
    return ("%04x" if archive.version == 1 else "%08x") % entry.check


ROW = "%10s %10s %6s %-6s %-8s %-16s %s"


def render(path, archive):
    lines = ["Archive: %s" % path,
             "Format %d, %d entries%s" % (archive.version, len(archive.entries),
                                         ", encrypted" if archive.encrypted else ""),
             ROW % ("Size", "Packed", "Ratio", "Method", "Check", "Modified", "Name")]
    total_size = total_packed = 0
    for entry in archive.entries:
        packed = entry.packed()
        total_size += entry.size
        total_packed += packed
        lines.append(ROW % (entry.size, packed, ratio(entry.size, packed), method_label(entry),
                            check_label(archive, entry), modified(entry),
                            display_name(entry.name)))
    count = len(archive.entries)
    lines.append(ROW % (total_size, total_packed, ratio(total_size, total_packed), "", "", "",
                        "%d file%s" % (count, "" if count == 1 else "s")))
    return "\n".join(lines) + "\n"
