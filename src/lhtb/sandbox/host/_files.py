"""Putting what came out of a sandbox on the host without following anything it made.

Everything copied out of a sandbox is attacker-made. On the host it becomes
regular files and directories only, created relative to directory file
descriptors with ``O_NOFOLLOW``: a link, device or FIFO from the sandbox is
never created, never followed and never written through; it is dropped and
named in the list :func:`extract_to_host` returns. The harness writes its own
files next to such output with :func:`write_host_file`, which never follows a
link either.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import tarfile
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import IO

from lhtb.errors import ArchiveError
from lhtb.sandbox.archive import DEFAULT_ARCHIVE_LIMITS, ArchiveLimits, member_budget

__all__ = ["MAX_DEPTH", "extract_to_host", "write_host_file"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
MAX_DEPTH = 64
"""Deeper members are dropped (the host's own tools may recurse over what is kept)."""
_KINDS = {
    tarfile.SYMTYPE: "symbolic link",
    tarfile.LNKTYPE: "hard link",
    tarfile.CHRTYPE: "character device",
    tarfile.BLKTYPE: "block device",
    tarfile.FIFOTYPE: "FIFO",
}


def write_host_file(directory: Path, name: str, data: bytes) -> None:
    """Write ``data`` to the regular file ``directory/name`` (``name``: one component).

    A link at ``name`` is not followed (``ELOOP``), a directory is not replaced.

    Raises:
        OSError: something other than a regular file is in the way.
    """
    fd = os.open(directory, _DIR_FLAGS)
    try:
        _write_at(fd, name, io.BytesIO(data))
    finally:
        os.close(fd)


def _write_at(dir_fd: int, name: str, source: IO[bytes]) -> None:
    handle = os.open(name, _FILE_FLAGS, 0o644, dir_fd=dir_fd)
    with os.fdopen(handle, "wb") as out:
        if not stat.S_ISREG(os.fstat(out.fileno()).st_mode):
            raise OSError(f"{name} is not a regular file")
        shutil.copyfileobj(source, out)


@contextlib.contextmanager
def _directory_at(top: int, parts: list[str]) -> Iterator[int]:
    """A descriptor of the directory ``parts`` under ``top``, made as needed, no links followed."""
    fd = os.dup(top)
    try:
        for part in parts:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=fd)
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def extract_to_host(
    archive: bytes,
    dest: Path,
    *,
    strip: str = "/",
    limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
    reserved: Collection[str] = (),
) -> list[str]:
    """Copy the regular files and directories of an exported archive into ``dest``.

    Members under the sandbox path ``strip`` land relative to ``dest``
    (``/logs/verifier/x`` with ``strip="/logs/verifier"`` becomes ``dest/x``);
    members outside it are ignored. Links, devices and FIFOs, members whose
    top-level name is in ``reserved`` (the harness's own files), members deeper
    than :data:`MAX_DEPTH` and members that clash with what is already there
    are dropped.

    Returns:
        One line per dropped member, saying what it was.

    Raises:
        ArchiveError: the archive is unreadable, has absolute or ``..`` names,
            or exceeds ``limits``; nothing was written.
    """
    root = strip.strip("/")
    _check_names(archive, root, limits)
    dest.mkdir(parents=True, exist_ok=True)
    dropped: list[str] = []
    copied: set[str] = set()
    top = os.open(dest, _DIR_FLAGS)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
            for info in tar:
                name = _relative(info.name, root)
                parts = [p for p in (name or ".").split("/") if p not in {"", "."}]
                if name is None or not parts:
                    continue
                if parts[0] in reserved:
                    dropped.append(f"{name}: reserved for the harness's own output")
                    continue
                if len(parts) > MAX_DEPTH:
                    dropped.append(f"{name[:200]}...: deeper than {MAX_DEPTH} levels")
                    continue
                # A hard link to a file copied here becomes a copy (extractfile reads its data).
                copy = info.islnk() and _relative(info.linkname, root) in copied
                if not (info.isreg() or info.isdir() or copy):
                    kind = _KINDS.get(info.type, f"member of type {info.type!r}")
                    target = f" to {info.linkname!r}" if info.issym() or info.islnk() else ""
                    dropped.append(f"{name}: {kind}{target} (not copied)")
                    continue
                try:
                    _place(top, parts, info, tar)
                    copied.add("/".join(parts))
                except OSError as error:
                    dropped.append(f"{name}: not copied ({error.strerror or error})")
    finally:
        os.close(top)
    return dropped


def _place(top: int, parts: list[str], info: tarfile.TarInfo, tar: tarfile.TarFile) -> None:
    if info.isdir():
        with _directory_at(top, parts):
            return
    with _directory_at(top, parts[:-1]) as parent:
        source = tar.extractfile(info)
        _write_at(parent, parts[-1], source if source is not None else io.BytesIO())


def _relative(raw: str, root: str) -> str | None:
    name = raw.rstrip("/")
    while name.startswith("./"):
        name = name[2:]
    name = name or "."
    if not root:
        return name
    if name.startswith(root + "/"):
        return name[len(root) + 1 :]
    return None


def _check_names(archive: bytes, root: str, limits: ArchiveLimits) -> None:
    """Check names and caps before anything is written."""
    take = member_budget(limits)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
            for info in tar:
                take(info)
                name = _relative(info.name, root)
                if name is None:
                    continue
                if info.name.startswith("/") or ".." in name.split("/"):
                    raise ArchiveError(
                        "absolute or '..' member name",
                        where=f"archive member {info.name!r}",
                        fix="Write only relative paths inside the log directory",
                    )
    except tarfile.TarError as error:
        raise ArchiveError(
            f"not a readable tar archive ({error})", where="archive", fix="Pass tar bytes"
        ) from error
