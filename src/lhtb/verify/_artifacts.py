"""Checks on exported artifacts before they reach a verifier sandbox.

An exported artifact is the agent's work and its every name and link is
untrusted: :func:`confine` keeps it inside its declared path (links resolved
the way the kernel will resolve them), :func:`non_directory_root` spots an
artifact directory the agent replaced by something else, and
:func:`removable_members` says what of an image's artifact path to empty before
the agent's copy goes in.
"""

from __future__ import annotations

import io
import posixpath
import tarfile
from collections.abc import Iterable
from pathlib import PurePosixPath

from lhtb.errors import ArchiveError
from lhtb.sandbox._link_walk import escapes
from lhtb.sandbox.archive import is_excluded, symlink_targets

__all__ = ["confine", "non_directory_root", "removable_members"]


def confine(archive: bytes, source: str) -> bytes:
    """Keep an exported artifact inside its declared path ``source``.

    Directory entries of ``source``'s parents are dropped; any other member
    outside ``source``, a symbolic link resolving outside it, or a hard link to
    a member outside it refuses the whole artifact.

    Raises:
        ArchiveError: a member or link leaves ``source``.
    """
    root = posixpath.normpath("/" + source.strip("/"))
    prefix = root.strip("/")

    def inside(path: str) -> bool:
        return root in (path, "/") or path.startswith(root + "/")

    out = io.BytesIO()
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as reader:
            symlinks = symlink_targets(reader, "/")
        with (
            tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as reader,
            tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as writer,
        ):
            for info in reader:
                name = "/" + info.name.strip("/").removeprefix("./")
                where = f"artifact {root}"
                if not inside(posixpath.normpath(name)) or ".." in name.split("/"):
                    if info.isdir() and prefix.startswith(name.strip("/")):
                        continue  # a parent directory of the artifact path
                    raise ArchiveError(f"member {info.name!r} is outside {root}", where=where)
                if info.issym():
                    # Resolved as the kernel will, through the artifact's other links.
                    path = posixpath.normpath(name)
                    why = escapes(path, info.linkname, symlinks, root)
                    if why is not None:
                        raise ArchiveError(
                            f"link {info.name!r} -> {info.linkname!r} leaves {root}: {why}",
                            where=where,
                        )
                if info.islnk() and not inside("/" + info.linkname.strip("/")):
                    raise ArchiveError(
                        f"hard link {info.name!r} -> {info.linkname!r} leaves {root}", where=where
                    )
                writer.addfile(info, reader.extractfile(info) if info.isreg() else None)
    except tarfile.TarError as error:
        raise ArchiveError(f"unreadable artifact archive ({error})", where=root) from error
    return out.getvalue()


def non_directory_root(archive: bytes) -> str | None:
    """The absolute path of the archive's first member (an artifact's root) unless it is a
    directory."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
        first = tar.next()
    if first is None or first.isdir():
        return None
    return "/" + first.name.strip("/").removeprefix("./")


def removable_members(archive: bytes, exclude: Iterable[str]) -> list[str]:
    """The fewest absolute paths that cover every member of ``archive`` an ``exclude``
    pattern does not match, without covering one it matches (what an artifact path holds
    that its export leaves out stays)."""
    patterns = tuple(exclude)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
        names = sorted({"/" + m.name.strip("/").removeprefix("./") for m in tar.getmembers()})
    excluded = [n for n in names if is_excluded(n, patterns)]
    holding = {str(parent) for n in excluded for parent in PurePosixPath(n).parents}
    chosen: dict[str, None] = {}
    for name in names:  # sorted: a directory comes before what it holds
        if name in holding or is_excluded(name, patterns):
            continue
        if not any(str(parent) in chosen for parent in PurePosixPath(name).parents):
            chosen[name] = None
    return list(chosen)
