"""Task directory contents: the instruction's canary lines and the content checksum."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["strip_canary", "task_checksum"]

_SKIPPED_DIRS = frozenset({"__pycache__", ".git"})
_SKIPPED_SUFFIXES = (".pyc",)
_CHUNK = 1 << 20


def _is_canary(line: str) -> bool:
    text = line.strip()
    is_comment = text.startswith("#") or (text.startswith("<!--") and text.endswith("-->"))
    return is_comment and "canary" in text.lower()


def strip_canary(text: str) -> str:
    """Drop leading canary comment lines and the blank lines after them.

    A canary line is an HTML comment (``<!-- ... -->``) or a ``#`` comment
    that contains "canary" (any case). Benchmarks put them at the top of an
    instruction so that leaked copies can be recognised in training data; they
    are not part of what the agent is asked to do.
    """
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and _is_canary(lines[start]):
        start += 1
        while start < len(lines) and not lines[start].strip():
            start += 1
    return "".join(lines[start:])


def _files(root: Path) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name not in _SKIPPED_DIRS]
        base = Path(directory)
        # os.walk does not descend into linked directories: hash the link itself.
        found.extend(
            ((base / name).relative_to(root).as_posix(), base / name)
            for name in dirnames
            if (base / name).is_symlink()
        )
        for name in filenames:
            if name.endswith(_SKIPPED_SUFFIXES):
                continue
            path = base / name
            found.append((path.relative_to(root).as_posix(), path))
    found.sort(key=lambda item: item[0])
    return found


def task_checksum(root: Path) -> str:
    """The sha256 (hex) of a task directory's files: stable across machines.

    Files are taken in order of their relative POSIX path; each contributes its
    path, its size and its bytes (a symlink contributes its target instead).
    ``__pycache__`` and ``.git`` directories and ``*.pyc`` files are skipped.
    File modes and times do not count.
    """
    digest = hashlib.sha256()
    for relative, path in _files(root):
        if path.is_symlink():
            target = str(path.readlink()).encode()
            digest.update(b"L\0" + relative.encode() + b"\0" + target + b"\0")
            continue
        digest.update(
            b"F\0" + relative.encode() + b"\0" + str(path.stat().st_size).encode() + b"\0"
        )
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()
