"""A task's environment directory as every backend sees it: its compose file, its hash.

Both backends ask the same two questions of ``environment/``: is it a compose
environment (Docker runs it; the local backend refuses it), and what is its
content hash (the cache key of a built image or a provisioned layer).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["COMPOSE_FILE", "environment_hash", "find_compose_file"]

COMPOSE_FILE = "docker-compose.yaml"
"""The one file name that makes an environment a compose environment (as in Harbor)."""


def find_compose_file(directory: Path) -> Path | None:
    """``docker-compose.yaml`` of an environment directory, if it has one.

    As in Harbor, only that name counts and it counts even beside a Dockerfile
    (which then builds ``main``); ``docker-compose.yml`` or ``compose.yaml`` are data.
    """
    path = directory / COMPOSE_FILE
    return path if path.is_file() else None


def environment_hash(directory: Path) -> str:
    """SHA-256 over every file's relative path, type, executable bit and content."""
    digest = hashlib.sha256()
    root = directory.resolve()
    entries: list[Path] = []
    for current, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        base = Path(current)
        entries.extend(base / name for name in dirnames if (base / name).is_symlink())
        entries.extend(base / name for name in sorted(filenames))
    for path in sorted(entries, key=lambda p: p.relative_to(root).as_posix()):
        relative = path.relative_to(root).as_posix()
        if path.is_symlink():
            digest.update(f"L\0{relative}\0{path.readlink()}\0".encode())
            continue
        executable = os.access(path, os.X_OK)
        digest.update(f"F\0{relative}\0{int(executable)}\0".encode())
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()
