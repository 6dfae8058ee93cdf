"""Tar archives that cross the sandbox boundary: validation, safe extraction, repacking.

Archives exported from an agent's sandbox are attacker-controlled: the agent
chose every name, link and size in them. Before anything is written, every
member is checked (:func:`validate_archive`) and the whole archive is refused
on the first broken rule:

* no absolute names and no ``..`` components;
* symbolic links must resolve inside the destination the way the kernel will
  resolve them (through the archive's other links), hard links must point at
  a regular file stored earlier in the same archive;
* no member may be stored *through* a link of the same archive
  (``out -> /etc`` followed by ``out/passwd``);
* only regular files, directories and links: no devices, FIFOs or sparse files;
* at most :attr:`ArchiveLimits.max_members` members and
  :attr:`ArchiveLimits.max_total_bytes` bytes of content.

Backends use :func:`validate_archive` before handing an archive to their own
extractor (e.g. Docker's ``put_archive``); what is copied *to the host* goes
through :func:`lhtb.sandbox.host.extract_to_host`, which keeps regular
files and directories only. :func:`repack` turns per-path archives into one whose
member names are relative to ``/``, applying exclusions and the same caps.
"""

from __future__ import annotations

import fnmatch
import io
import posixpath
import tarfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from lhtb.errors import ArchiveError
from lhtb.sandbox._link_walk import escapes

__all__ = [
    "DEFAULT_ARCHIVE_LIMITS",
    "ArchiveLimits",
    "is_excluded",
    "member_budget",
    "pack_directory",
    "relocate",
    "repack",
    "symlink_targets",
    "validate_archive",
]

_FIX = "Export only regular files, directories and links that stay inside the artifact paths"


@attrs.frozen
class ArchiveLimits:
    """Caps applied to one archive. Both must be positive."""

    max_total_bytes: int = attrs.field(default=2 * 1024**3, validator=attrs.validators.gt(0))
    """Sum of the sizes of all members' content (default 2 GiB)."""
    max_members: int = attrs.field(default=200_000, validator=attrs.validators.gt(0))
    """Number of members (files, directories and links) (default 200 000)."""


DEFAULT_ARCHIVE_LIMITS = ArchiveLimits()


def _normalise(name: str) -> str:
    """A member name without leading ``./`` and trailing ``/``; ``.`` for the root."""
    stripped = name.rstrip("/")
    while stripped.startswith("./"):
        stripped = stripped[2:]
    return stripped or "."


def _fail(what: str, member: str, fix: str = _FIX) -> ArchiveError:
    return ArchiveError(what, where=f"archive member {member!r}", fix=fix)


def validate_archive(
    archive: bytes, *, dest: str = "/", limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
) -> list[tarfile.TarInfo]:
    """Check every member of ``archive`` against the safe-extraction rules.

    ``dest`` is the absolute directory the archive will be extracted under; it
    is only used to resolve symbolic links (absolute link targets are taken
    literally and must fall under ``dest``).

    Returns:
        The members, in archive order.

    Raises:
        ArchiveError: the archive is unreadable or breaks a rule.
    """
    if not posixpath.isabs(dest):
        raise ArchiveError(
            f"destination {dest!r} is not absolute", where="import", fix="Pass an absolute path"
        )
    root = posixpath.normpath(dest)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
            members = _collect(tar, limits)
    except tarfile.TarError as error:
        raise ArchiveError(
            f"not a readable tar archive ({error})",
            where="archive",
            fix="Pass the bytes of a tar archive (plain, gzip, bz2 or xz)",
        ) from error
    _check_members(members, root)
    return members


def _collect(tar: tarfile.TarFile, limits: ArchiveLimits) -> list[tarfile.TarInfo]:
    members: list[tarfile.TarInfo] = []
    total = 0
    for info in tar:
        members.append(info)
        total += max(info.size, 0)
        if len(members) > limits.max_members:
            raise _fail(
                f"archive has more than {limits.max_members} members",
                info.name,
                fix="Export fewer files, or raise ArchiveLimits.max_members",
            )
        if total > limits.max_total_bytes:
            raise _fail(
                f"archive content exceeds {limits.max_total_bytes} bytes",
                info.name,
                fix="Export less data, or raise ArchiveLimits.max_total_bytes",
            )
    return members


def symlink_targets(members: Iterable[tarfile.TarInfo], root: str) -> dict[str, str]:
    """The absolute path under ``root`` of every symbolic link the archive leaves, to its
    target (a later member of the same name replaces an earlier one)."""
    found: dict[str, str] = {}
    for info in members:
        path = posixpath.normpath(posixpath.join(root, _normalise(info.name)))
        if info.issym():
            found[path] = info.linkname
        else:
            found.pop(path, None)
    return found


def _through(parts: list[str], links: set[str]) -> bool:
    """Whether a parent of the member ``parts`` is a link of the archive."""
    prefix = ""
    for part in parts[:-1]:
        prefix = f"{prefix}/{part}" if prefix else part
        if prefix in links:
            return True
    return False


def _check_members(members: Sequence[tarfile.TarInfo], root: str) -> None:
    symlinks = symlink_targets(members, root)
    links: set[str] = set()
    clean: set[str] = set()  # directories with no link of the archive above them
    regular: set[str] = set()
    for info in members:
        raw = info.name
        if raw.startswith("/") or posixpath.isabs(raw):
            raise _fail("absolute member name", raw)
        name = _normalise(raw)
        parts = name.split("/")
        if ".." in parts:
            raise _fail("member name contains '..'", raw)
        parent = name.rpartition("/")[0]
        if parent in links or (parent and parent not in clean and _through(parts, links)):
            raise _fail("member is stored through a link of the same archive", raw)
        if info.isreg():
            if info.sparse is not None:
                raise _fail("sparse file members are not supported", raw)
            regular.add(name)
            links.discard(name)
        elif info.isdir():
            links.discard(name)
            clean.add(name)
        elif info.issym():
            path = posixpath.normpath(posixpath.join(root, name))
            why = escapes(path, info.linkname, symlinks, root)
            if why is not None:
                raise _fail(
                    f"symbolic link to {info.linkname!r} points outside {root} ({why})", raw
                )
            links.add(name)
            clean.clear()  # a link may now stand above any of them
            regular.discard(name)
        elif info.islnk():
            target_raw = info.linkname
            target = _normalise(target_raw)
            if target_raw.startswith("/") or ".." in target.split("/"):
                raise _fail(f"hard link to {target_raw!r} points outside the archive", raw)
            if target not in regular:
                raise _fail(
                    f"hard link to {target_raw!r}, which is not a regular file stored earlier",
                    raw,
                )
            links.add(name)
            clean.clear()
        else:
            kind = {
                tarfile.CHRTYPE: "character device",
                tarfile.BLKTYPE: "block device",
                tarfile.FIFOTYPE: "FIFO",
            }.get(info.type, f"type {info.type!r}")
            raise _fail(f"{kind} members are not allowed", raw)


def is_excluded(path: str, patterns: Iterable[str]) -> bool:
    """True when ``path`` (relative to ``/``) or one of its parents matches a pattern.

    A pattern matches a path written with or without its leading ``/``, or the
    last component alone (``*.pyc``, ``node_modules``).
    """
    if not patterns:
        return False
    name = _normalise(path.lstrip("/"))
    parts = name.split("/")
    candidates = ["/".join(parts[:depth]) for depth in range(1, len(parts) + 1)]
    for pattern in patterns:
        stripped = pattern.strip("/")
        for candidate in candidates:
            base = candidate.rsplit("/", 1)[-1]
            if fnmatch.fnmatchcase(candidate, stripped) or fnmatch.fnmatchcase(base, stripped):
                return True
    return False


class _Budget:
    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.members = 0
        self.bytes = 0

    def take(self, info: tarfile.TarInfo) -> None:
        self.members += 1
        self.bytes += max(info.size, 0)
        if self.members > self.limits.max_members:
            raise _fail(
                f"export has more than {self.limits.max_members} members",
                info.name,
                fix="Export fewer files, or raise ArchiveLimits.max_members",
            )
        if self.bytes > self.limits.max_total_bytes:
            raise _fail(
                f"export exceeds {self.limits.max_total_bytes} bytes",
                info.name,
                fix="Export less data, or raise ArchiveLimits.max_total_bytes",
            )


def member_budget(limits: ArchiveLimits) -> Callable[[tarfile.TarInfo], None]:
    """A counter that raises :class:`ArchiveError` once the members seen exceed ``limits``."""
    return _Budget(limits).take


def repack(
    parts: Iterable[tuple[str, io.RawIOBase | io.BufferedIOBase]],
    *,
    exclude: Sequence[str] = (),
    limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
) -> bytes:
    """Merge per-path tar streams into one archive with names relative to ``/``.

    Each part is ``(parent, stream)``: ``stream`` is a tar whose member names
    are relative to the absolute directory ``parent`` (what ``docker cp`` and
    Docker's archive API produce: the last path component first). Members
    matching ``exclude`` (see :func:`is_excluded`) are dropped with their
    children. Hard-link targets are rebased like the names.

    Raises:
        ArchiveError: a stream is not a tar archive, or the caps are exceeded.
    """
    take = member_budget(limits)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as writer:
        for parent, stream in parts:
            prefix = parent.strip("/")
            try:
                with tarfile.open(fileobj=stream, mode="r|*") as reader:
                    for info in reader:
                        name = _normalise(info.name)
                        full = f"{prefix}/{name}" if prefix else name
                        if is_excluded(full, exclude):
                            continue
                        take(info)
                        info.name = full
                        if info.islnk():
                            target = _normalise(info.linkname)
                            info.linkname = f"{prefix}/{target}" if prefix else target
                        data = reader.extractfile(info) if info.isreg() else None
                        writer.addfile(info, data)
            except tarfile.TarError as error:
                raise ArchiveError(
                    f"unreadable archive stream ({error})",
                    where=f"export of /{prefix}",
                    fix="Retry; if it persists, the sandbox's storage may be broken",
                ) from error
    return out.getvalue()


def _rename(archive: bytes, rename: Callable[[str], str | None]) -> bytes:
    """Rewrite member names (and hard-link targets); ``None`` drops the member."""
    out = io.BytesIO()
    try:
        with (
            tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as reader,
            tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as writer,
        ):
            for info in reader:
                name = rename(_normalise(info.name))
                if name is None:
                    continue
                if info.islnk():
                    target = rename(_normalise(info.linkname))
                    if target is None:
                        continue
                    info.linkname = target
                info.name = name
                writer.addfile(info, reader.extractfile(info) if info.isreg() else None)
    except tarfile.TarError as error:
        raise ArchiveError(
            f"not a readable tar archive ({error})", where="archive", fix="Pass tar bytes"
        ) from error
    return out.getvalue()


def _reprefix(source: str, target: str) -> Callable[[str], str | None]:
    old = source.strip("/")
    new = target.strip("/")

    def rename(name: str) -> str | None:
        if name == old or (name == "." and not old):
            return new or None
        if name == ".":
            return name
        if not old:
            return f"{new}/{name}" if new else name
        if name.startswith(old + "/"):
            rest = name[len(old) + 1 :]
            return f"{new}/{rest}" if new else rest
        return name

    return rename


def relocate(archive: bytes, source: str, target: str) -> bytes:
    """Move the members under ``source`` to ``target`` (both absolute sandbox paths).

    Members outside ``source`` keep their names. Used when an artifact's
    ``destination`` differs from its ``source``.
    """
    return _rename(archive, _reprefix(source, target))


def pack_file(source: Path, dest: str) -> bytes:
    """A tar holding only the host file ``source`` at the absolute path ``dest`` (owner root).

    No directory entries: the directories above ``dest`` keep their modes.
    """
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tar.gettarinfo(str(source), arcname=dest.strip("/"))
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        with source.open("rb") as handle:
            tar.addfile(info, handle)
    return out.getvalue()


def pack_directory(directory: Path, dest: str, *, extra: Mapping[str, Path] | None = None) -> bytes:
    """A tar of the host ``directory`` whose members land under the absolute ``dest``.

    Modes are kept (so ``test.sh`` stays executable), owners become root.
    ``extra`` adds host files under ``dest`` by name (replacing same-named ones).

    Raises:
        FileNotFoundError: ``directory`` or an ``extra`` file does not exist.
    """
    if not directory.is_dir():
        raise FileNotFoundError(2, "No such directory", str(directory))
    prefix = dest.strip("/")
    extras = dict(extra or {})
    out = io.BytesIO()

    def as_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        return info

    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(directory, arcname=prefix or ".", recursive=False, filter=as_root)
        for path in sorted(directory.rglob("*")):
            relative = path.relative_to(directory).as_posix()
            if prefix and relative in extras:
                continue
            arcname = f"{prefix}/{relative}" if prefix else relative
            tar.add(path, arcname=arcname, recursive=False, filter=as_root)
        for name, source in sorted(extras.items()):
            arcname = f"{prefix}/{name}" if prefix else name
            tar.add(source, arcname=arcname, recursive=False, filter=as_root)
    return out.getvalue()
