"""Copying, measuring and removing directory trees on the host (layers, staged changes).

Used by both container backends: the local backend's image store and the Docker
backend's staged snapshots copy layers with ``cp -a`` and measure them without
following anything in them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from lhtb.errors import SandboxError
from lhtb.sandbox.host._tree_usage import tree_usage

__all__ = ["copy_tree", "remove_tree", "tree_size"]


def copy_tree(source: Path, target: Path, *, into: bool = False) -> None:
    """Copy a layer with ``cp -a`` (keeps owners, modes, xattrs, whiteout devices, links);
    ``into``: what ``source`` holds, into the existing directory ``target``.

    Raises:
        SandboxError: the copy failed.
    """
    origin = f"{source}/." if into else str(source)
    result = subprocess.run(
        ["cp", "-a", "--", origin, str(target)], capture_output=True, check=False
    )
    if result.returncode != 0:
        raise SandboxError(
            f"copying layer {source} failed: {result.stderr.decode(errors='replace').strip()}",
            where=str(target),
            fix=f"Check the free disk space where {target} is",
        )


def tree_size(path: Path) -> int:
    """Apparent size of every file under ``path`` (sparse files count in full)."""
    return tree_usage(os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), ".")[0]


def remove_tree(path: Path) -> None:
    """Remove a directory tree of any depth, including overlay work directories left
    with mode 000."""
    if not path.exists() and not path.is_symlink():
        return
    subprocess.run(["rm", "-rf", "--", str(path)], capture_output=True, check=False)
    if path.exists():
        subprocess.run(["chmod", "-R", "u+rwx", "--", str(path)], capture_output=True, check=False)
        subprocess.run(["rm", "-rf", "--", str(path)], capture_output=True, check=False)
