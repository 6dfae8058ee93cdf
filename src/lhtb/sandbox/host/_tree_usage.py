"""Measuring a sandbox's files from the host, without following anything in them.

Exports are checked against the archive caps *before* a byte is read: the host
walks the sandbox's tree through its init's root (``/proc/<pid>/root``) with
``O_NOFOLLOW``, so an agent's tools cannot lie about sizes and a sparse file
counts in full.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence

from lhtb.errors import ArchiveError
from lhtb.sandbox.archive import ArchiveLimits

__all__ = ["check_export_size", "tree_usage"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def tree_usage(
    root_fd: int, path: str, *, max_bytes: int | None = None, max_entries: int | None = None
) -> tuple[int, int]:
    """``(apparent bytes, entries)`` of ``path`` (relative to the directory ``root_fd``,
    which is closed) and everything below it.

    Iterative (a sandbox may leave trees thousands of levels deep), links are not
    followed, unreadable parts are skipped; stops early once over a maximum.
    """
    size = entries = 0
    pending = [path]
    try:
        while pending:
            current = pending.pop()
            with contextlib.suppress(OSError):
                info = os.stat(current, dir_fd=root_fd, follow_symlinks=False)
                entries += 1
                if not stat.S_ISDIR(info.st_mode):
                    size += info.st_size if stat.S_ISREG(info.st_mode) else 0
                else:
                    fd = os.open(current, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=root_fd)
                    try:
                        with os.scandir(fd) as listing:
                            pending.extend(f"{current}/{entry.name}" for entry in listing)
                    finally:
                        os.close(fd)
            if (max_bytes is not None and size > max_bytes) or (
                max_entries is not None and entries > max_entries
            ):
                break
    finally:
        os.close(root_fd)
    return size, entries


def check_export_size(
    init_pid: int, paths: Sequence[str], limits: ArchiveLimits, *, where: str
) -> None:
    """Refuse an export of ``paths`` (relative to the sandbox's ``/``) over ``limits``.

    Raises:
        ArchiveError: the paths hold more bytes (apparent size) or entries than the caps.
    """
    size = entries = 0
    for path in paths:
        root = os.open(f"/proc/{init_pid}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        more = tree_usage(
            root,
            path,
            max_bytes=limits.max_total_bytes - size,
            max_entries=limits.max_members - entries,
        )
        size, entries = size + more[0], entries + more[1]
    if size > limits.max_total_bytes or entries > limits.max_members:
        raise ArchiveError(
            f"export of {', '.join('/' + p for p in paths)} holds over "
            f"{limits.max_total_bytes} bytes or {limits.max_members} entries "
            "(apparent size: a sparse file counts in full)",
            where=where,
            fix="Export less data, or raise ArchiveLimits",
        )
