"""Exporting a frozen sandbox's files from the host, through its init's root.

Docker's archive API costs tens of milliseconds per call even on an idle
daemon, and a local sandbox's ``tar`` a fork and a round trip through its
init; a checkpoint's capture pauses the agent for all of it. When the host
sees the sandbox's processes, the same tar is built here instead: the
walk starts at ``/proc/<init>/root`` and goes down one component at a time
with ``openat`` and ``O_NOFOLLOW``, so nothing the sandbox made is followed on
the host. Symbolic links are stored as links (their targets as data, judged
later like any exported link), regular files and directories are copied (read
with ``O_NOFOLLOW``), devices and FIFOs are recorded, never opened (the
archive's checks refuse them, as they refuse Docker's), and sockets are left
out, as Docker leaves them out. Owners are recorded as the sandbox sees them
(a rootless local sandbox maps only its root, see :class:`Owners`).
"""

from __future__ import annotations

import functools
import io
import os
import stat
import tarfile
from collections.abc import Callable, Sequence

import anyio.to_thread
import attrs

from lhtb._util.log import get_logger
from lhtb.sandbox.archive import ArchiveLimits, is_excluded, member_budget

__all__ = ["Owners", "export_from_host", "export_on_host"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_MAX_OPEN_DIRS = 256
"""Deeper trees than this (directories open at once) are left to the sandbox's own
export (descriptors)."""
_OVERFLOW_ID = 65534
"""What a user namespace shows for an id it does not map (``kernel.overflowuid``)."""
_SPECIAL = {
    stat.S_IFCHR: tarfile.CHRTYPE,
    stat.S_IFBLK: tarfile.BLKTYPE,
    stat.S_IFIFO: tarfile.FIFOTYPE,
}
_Take = Callable[[tarfile.TarInfo], None]
log = get_logger(__name__)


@attrs.frozen
class Owners:
    """How the sandbox sees the host's owners: ``root`` (the host's uid and gid)
    is its root and every other id is unmapped; ``None``: as the host sees them."""

    root: tuple[int, int] | None = None

    def apply(self, tar: tarfile.TarInfo) -> None:
        if self.root is not None:
            uid, gid = self.root
            tar.uid = 0 if tar.uid == uid else _OVERFLOW_ID
            tar.gid = 0 if tar.gid == gid else _OVERFLOW_ID


async def export_on_host(
    init_pid: int,
    paths: Sequence[str],
    *,
    exclude: Sequence[str],
    limits: ArchiveLimits,
    where: str,
    owners: Owners = Owners(),
) -> bytes | None:
    """:func:`export_from_host` in a worker thread; ``None`` when the host cannot walk
    there (the caller then exports through the sandbox).

    Raises:
        FileNotFoundError: a path does not exist.
        ArchiveError: the export exceeds ``limits``.
    """
    work = functools.partial(
        export_from_host, init_pid, paths, exclude=exclude, limits=limits, owners=owners
    )
    try:
        return await anyio.to_thread.run_sync(work)
    except FileNotFoundError:
        raise
    except OSError as error:
        log.debug("sandbox_host_export_skipped", where=where, error=str(error))
        return None


def export_from_host(
    init_pid: int,
    paths: Sequence[str],
    *,
    exclude: Sequence[str],
    limits: ArchiveLimits,
    owners: Owners = Owners(),
) -> bytes:
    """A tar of the absolute ``paths`` of the sandbox whose init is ``init_pid``,
    names relative to ``/`` (what :func:`~lhtb.sandbox.archive.repack` makes of
    Docker's archive).

    Raises:
        FileNotFoundError: a path does not exist.
        ArchiveError: the export exceeds ``limits``.
        OSError: the host cannot walk there (a linked parent directory, no access
            to the sandbox's root, a tree too deep): the caller exports through the
            sandbox instead (Docker's archive, a local sandbox's ``tar``).
    """
    take = member_budget(limits)
    out = io.BytesIO()
    root = os.open(f"/proc/{init_pid}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as writer:
            for path in paths:
                parts = [p for p in path.split("/") if p not in {"", "."}]
                if ".." in parts:
                    raise OSError(f"{path}: '..' is left to the sandbox")
                if not parts:
                    raise OSError("the whole root is left to the sandbox")
                parent = _open_parent(root, parts[:-1])
                try:
                    _add_tree(writer, parent, parts[-1], "/".join(parts), exclude, take, owners)
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
    owners: Owners,
) -> None:
    """Add ``name`` (in the directory ``parent``) as ``full`` and everything below it.

    Depth first; a directory stays open only while entries of it are pending, so
    only a tree deeper than ``_MAX_OPEN_DIRS`` is left to the sandbox.
    """
    pending: list[tuple[int | None, str, str]] = [(None, name, full)]
    waiting: dict[int, int] = {}  # an open directory: how many of its entries are pending
    try:
        while pending:
            at, entry, member = pending.pop()
            if not is_excluded(member, exclude):
                try:
                    opened = _add_entry(
                        writer, parent if at is None else at, entry, member, take, owners
                    )
                except FileNotFoundError:
                    if at is None:
                        raise
                    opened = None
                if opened is not None:
                    fd, names = opened
                    waiting[fd] = len(names) + 1
                    pending.extend((fd, child, f"{member}/{child}") for child in names)
                    _release(waiting, fd)
                    if len(waiting) > _MAX_OPEN_DIRS:
                        raise OSError(f"over {_MAX_OPEN_DIRS} levels of directories")
            if at is not None:
                _release(waiting, at)
    finally:
        for fd in waiting:
            os.close(fd)


def _release(waiting: dict[int, int], fd: int) -> None:
    """One entry of the open directory ``fd`` is done; close it after its last."""
    waiting[fd] -= 1
    if not waiting[fd]:
        del waiting[fd]
        os.close(fd)


def _add_entry(
    writer: tarfile.TarFile, dir_fd: int, entry: str, member: str, take: _Take, owners: Owners
) -> tuple[int, list[str]] | None:
    """Add one entry; a directory is returned open, with its entries' names (reversed).

    Raises:
        FileNotFoundError: the entry does not exist.
    """
    info = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False)
    tar = _tar_info(member, info, owners)
    if stat.S_ISLNK(info.st_mode):
        tar.type = tarfile.SYMTYPE
        tar.linkname = os.readlink(entry, dir_fd=dir_fd)
    elif stat.S_ISDIR(info.st_mode):
        fd = os.open(entry, _DIR_FLAGS, dir_fd=dir_fd)
        try:
            tar.type = tarfile.DIRTYPE
            take(tar)
            writer.addfile(tar)
            with os.scandir(fd) as listing:
                return fd, sorted((child.name for child in listing), reverse=True)
        except BaseException:
            os.close(fd)
            raise
    elif stat.S_ISREG(info.st_mode):
        _add_file(writer, dir_fd, entry, tar, take)
        return None
    elif special := _SPECIAL.get(stat.S_IFMT(info.st_mode)):
        tar.type = special  # kept for the archive's checks to refuse, as Docker's are
        tar.devmajor, tar.devminor = os.major(info.st_rdev), os.minor(info.st_rdev)
    else:
        return None  # a socket: left out, as Docker leaves it out
    take(tar)
    writer.addfile(tar)
    return None


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


def _tar_info(name: str, info: os.stat_result, owners: Owners) -> tarfile.TarInfo:
    tar = tarfile.TarInfo(name)
    tar.mode = stat.S_IMODE(info.st_mode)
    tar.uid, tar.gid = info.st_uid, info.st_gid
    owners.apply(tar)
    tar.mtime = int(info.st_mtime)
    return tar
