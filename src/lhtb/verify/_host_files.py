"""Artifacts given as host files, exported the way a sandbox exports them.

:func:`host_files` turns what :meth:`lhtb.Verifier.grade_files` accepts (a host
directory laid out like a sandbox's root, or a mapping of sandbox paths to
bytes) into an :class:`ArtifactSource`: the same ``export(paths, exclude=)``
that a sandbox offers, so the verifier collects and confines artifacts with one
implementation wherever they come from.

Links are stored as links, never followed; a path whose parent directory on
the host is a link is refused, so nothing outside the directory is read.
"""

from __future__ import annotations

import functools
import io
import os
import posixpath
import tarfile
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path, PurePosixPath
from typing import Protocol

import anyio
import attrs

from lhtb.errors import ArchiveError, GradeInputError
from lhtb.sandbox.archive import DEFAULT_ARCHIVE_LIMITS, ArchiveLimits, repack

__all__ = ["ArtifactFiles", "ArtifactSource", "HostTree", "host_files"]

ArtifactFiles = str | os.PathLike[str] | Mapping[str, bytes | str]
"""A host directory laid out like a sandbox's root, or sandbox paths mapped to contents."""
_FIX = (
    "pass a directory laid out like the sandbox's root (DIR/app/x.py is /app/x.py), "
    "or a mapping such as {'/app/x.py': b'...'}"
)


class ArtifactSource(Protocol):
    """Anything that exports paths as a tar archive: a sandbox, or a :class:`HostTree`."""

    async def export(self, paths: Sequence[str], *, exclude: Sequence[str] = ()) -> bytes:
        """A tar archive of ``paths`` with names relative to ``/``."""
        ...


def _as_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


@attrs.frozen
class HostTree:
    """A host directory standing in for a sandbox's root filesystem."""

    root: Path
    limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS

    async def export(self, paths: Sequence[str], *, exclude: Sequence[str] = ()) -> bytes:
        """A tar of ``paths`` (sandbox paths, found under :attr:`root`), names relative to ``/``.

        Raises:
            FileNotFoundError: a path does not exist.
            ArchiveError: a parent directory of a path is a link, or the caps are exceeded.
        """
        return await anyio.to_thread.run_sync(functools.partial(self._export, paths, exclude))

    def _export(self, paths: Sequence[str], exclude: Sequence[str]) -> bytes:
        parts = [("/", io.BytesIO(self._pack(path))) for path in paths]
        return repack(parts, exclude=exclude, limits=self.limits)

    def _pack(self, path: str) -> bytes:
        relative = posixpath.normpath("/" + path).strip("/")
        host = self.root
        for part in relative.split("/") if relative else ():
            if host != self.root and host.is_symlink():
                raise ArchiveError(
                    f"{host} is a link", where=f"files for {path}", fix="copy the files instead"
                )
            host = host / part
        if not host.exists() and not host.is_symlink():
            raise FileNotFoundError(2, "No such file or directory", str(host))
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
            tar.add(host, arcname=relative or ".", filter=_as_root)
        return out.getvalue()


def _sandbox_path(key: object) -> PurePosixPath:
    if not isinstance(key, str):
        raise GradeInputError(f"path {key!r} is not a string", where="files", fix=_FIX)
    path = PurePosixPath(key.lstrip("/"))
    if not path.parts or ".." in path.parts or path == PurePosixPath("."):
        raise GradeInputError(f"path {key!r} is not a file path in the sandbox", fix=_FIX)
    return path


def _write_tree(files: Mapping[str, bytes | str], root: Path) -> None:
    for key, data in files.items():
        target = root / _sandbox_path(key)
        if not isinstance(data, bytes | str):
            raise GradeInputError(
                f"the contents of {key!r} are a {type(data).__name__}", fix="give bytes or str"
            )
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.encode() if isinstance(data, str) else data)
        except OSError as exc:
            raise GradeInputError(f"cannot place {key!r}: {exc.strerror}", fix=_FIX) from exc


@asynccontextmanager
async def host_files(source: ArtifactFiles) -> AsyncIterator[HostTree]:
    """``source`` as a :class:`HostTree` (a mapping is written to a temporary directory first).

    Raises:
        GradeInputError: ``source`` is not a directory, or the mapping holds a bad path.
    """
    if isinstance(source, Mapping):
        with tempfile.TemporaryDirectory(prefix="lhtb-grade-files-") as temporary:
            root = Path(temporary)
            await anyio.to_thread.run_sync(_write_tree, source, root)
            yield HostTree(root)
        return
    root = Path(source)
    if not root.is_dir():
        raise GradeInputError(f"{root} is not a directory", where="grade_files", fix=_FIX)
    yield HostTree(root)
