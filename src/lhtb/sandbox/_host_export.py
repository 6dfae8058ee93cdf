"""Exporting a frozen container's files from the host, through its init's root.

Docker's archive API costs tens of milliseconds per call even on an idle
daemon; a checkpoint's capture pauses the agent for all of it. When the host
sees the container's processes, the same tar is built here instead: the
walk starts at ``/proc/<init>/root`` and goes down one component at a time
with ``openat`` and ``O_NOFOLLOW``, so nothing the sandbox made is followed on
the host. Symbolic links are stored as links (their targets as data, judged
later like any exported link), regular files and directories are copied (read
with ``O_NOFOLLOW``), devices and FIFOs are recorded, never opened (the
archive's checks refuse them, as they refuse Docker's), and sockets are left
out, as Docker leaves them out.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Callable, Sequence

from lhtb.sandbox.archive import ArchiveLimits, is_excluded, member_budget

__all__ = ["export_from_host"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_MAX_OPEN_DIRS = 256
"""More directories than this in one export are left to the Engine (descriptors)."""
_SPECIAL = {
    stat.S_IFCHR: tarfile.CHRTYPE,
    stat.S_IFBLK: tarfile.BLKTYPE,
    stat.S_IFIFO: tarfile.FIFOTYPE,
}
_Take = Callable[[tarfile.TarInfo], None]


def export_from_host(
    init_pid: int, paths: Sequence[str], *, exclude: Sequence[str], limits: ArchiveLimits
) -> bytes:
    """A tar of the absolute ``paths`` of the container whose init is ``init_pid``,
    names relative to ``/`` (what :func:`~lhtb.sandbox.archive.repack` makes of
    Docker's archive).

    Raises:
        FileNotFoundError: a path does not exist.
        ArchiveError: the export exceeds ``limits``.
        OSError: the host cannot walk there (a linked parent directory, no access
            to the container's root): the caller uses Docker's archive instead.
    """
    take = member_budget(limits)
    out = io.BytesIO()
    root = os.open(f"/proc/{init_pid}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as writer:
            for path in paths:
                parts = [p for p in path.split("/") if p not in {"", "."}]
                if ".." in parts:
                    raise OSError(f"{path}: '..' is left to the Engine")
                if not parts:
                    raise OSError("the whole root is left to the Engine")
                parent = _open_parent(root, parts[:-1])
                try:
                    _add_tree(writer, parent, parts[-1], "/".join(parts), exclude, take)
                finally:
                    os.close(parent)
    finally:
        os.close(root)
    return out.getvalue()


def _open_parent(root: int, parts: list[str]) -> int:
    fd = os.dup(root)
    try:
        for part in parts:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _add_tree(
    writer: tarfile.TarFile,
    parent: int,
    name: str,
    full: str,
    exclude: Sequence[str],
    take: _Take,
) -> None:
    """Add ``name`` (in the directory ``parent``) as ``full`` and everything below it."""
    pending: list[tuple[int | None, str, str]] = [(None, name, full)]
    opened: list[int] = []
    try:
        while pending:
            at, entry, member = pending.pop()
            dir_fd = parent if at is None else at
            if is_excluded(member, exclude):
                continue
            try:
                info = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                if at is None:
                    raise
                continue
            tar = _tar_info(member, info)
            if stat.S_ISLNK(info.st_mode):
                tar.type = tarfile.SYMTYPE
                tar.linkname = os.readlink(entry, dir_fd=dir_fd)
                take(tar)
                writer.addfile(tar)
            elif stat.S_ISDIR(info.st_mode):
                if len(opened) >= _MAX_OPEN_DIRS:
                    raise OSError(f"over {_MAX_OPEN_DIRS} directories: left to the Engine")
                fd = os.open(entry, _DIR_FLAGS, dir_fd=dir_fd)
                opened.append(fd)
                tar.type = tarfile.DIRTYPE
                take(tar)
                writer.addfile(tar)
                with os.scandir(fd) as listing:
                    names = sorted((child.name for child in listing), reverse=True)
                pending.extend((fd, child, f"{member}/{child}") for child in names)
            elif stat.S_ISREG(info.st_mode):
                _add_file(writer, dir_fd, entry, tar, take)
            elif special := _SPECIAL.get(stat.S_IFMT(info.st_mode)):
                tar.type = special  # kept for the archive's checks to refuse, as Docker's are
                tar.devmajor, tar.devminor = os.major(info.st_rdev), os.minor(info.st_rdev)
                take(tar)
                writer.addfile(tar)
    finally:
        for fd in opened:
            os.close(fd)


def _add_file(
    writer: tarfile.TarFile, dir_fd: int, entry: str, tar: tarfile.TarInfo, take: _Take
) -> None:
    fd = os.open(entry, _FILE_FLAGS, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return
        tar.size = info.st_size
        take(tar)
        writer.addfile(tar, handle)


def _tar_info(name: str, info: os.stat_result) -> tarfile.TarInfo:
    tar = tarfile.TarInfo(name)
    tar.mode = stat.S_IMODE(info.st_mode)
    tar.uid, tar.gid = info.st_uid, info.st_gid
    tar.mtime = int(info.st_mtime)
    return tar
