"""Task environment images: content-hash tags, builds with a deadline, presence checks.

Blocking functions, run in worker threads by :mod:`lhtb.sandbox.docker`.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path
from typing import Any

from lhtb.errors import SandboxError

__all__ = [
    "ENV_IMAGE_REPO",
    "LABEL_KIND",
    "LABEL_ROLE",
    "LABEL_RUN",
    "LABEL_TASK",
    "build_image",
    "environment_hash",
    "environment_tag",
    "image_id",
    "sanitise_name",
]

ENV_IMAGE_REPO = "lhtb-env"
SNAPSHOT_REPO = "lhtb-snapshot"
LABEL_RUN = "lhtb.run"
LABEL_ROLE = "lhtb.role"
LABEL_TASK = "lhtb.task"
LABEL_KIND = "lhtb.kind"
LABEL_HASH = "lhtb.env-hash"

_COMPONENT = re.compile(r"[^a-z0-9]+")
_BUILD_LOG_TAIL = 30


def sanitise_name(name: str) -> str:
    """A task name turned into a valid image repository path (``org/name`` kept)."""
    parts = [_COMPONENT.sub("-", part.lower()).strip("-") for part in name.split("/")]
    cleaned = "/".join(part for part in parts if part)
    return cleaned or "task"


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


def environment_tag(task_name: str, content_hash: str) -> str:
    """``lhtb-env/<task>:<first 12 hex digits of the hash>``."""
    return f"{ENV_IMAGE_REPO}/{sanitise_name(task_name)}:{content_hash[:12]}"


def image_id(client: Any, reference: str) -> str | None:
    """The id of a local image, or None when it is not present."""
    import docker.errors  # noqa: PLC0415 - keep the SDK import at the boundary

    try:
        image = client.images.get(reference)
    except docker.errors.ImageNotFound:
        return None
    return str(image.id)


def build_image(
    client: Any,
    directory: Path,
    *,
    tag: str,
    labels: dict[str, str],
    timeout: float,
    where: str,
) -> str:
    """Build ``directory`` (no pull: bases must be local) and return the image id.

    Raises:
        SandboxError: the build failed or ran past ``timeout``.
    """
    started = time.monotonic()
    tail: list[str] = []
    stream = client.api.build(
        path=str(directory),
        tag=tag,
        labels=labels,
        rm=True,
        forcerm=True,
        pull=False,
        decode=True,
        timeout=timeout,
    )
    error: str | None = None
    try:
        for event in stream:
            text = event.get("stream") or event.get("status") or ""
            if text.strip():
                tail = [*tail[-_BUILD_LOG_TAIL:], text.rstrip()]
            if "error" in event:
                error = str(event["error"]).strip()
            if time.monotonic() - started > timeout:
                error = f"build ran past {timeout:.0f}s"
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if error is not None:
        missing_base = any(
            marker in error
            for marker in ("pull access denied", "not found", "no such host", "manifest unknown")
        )
        fix = (
            "The base image is not available locally and cannot be pulled: run "
            "`lhtb images bootstrap` (or `docker pull` it where a registry is reachable)"
            if missing_base
            else f"Fix the Dockerfile; `docker build {directory}` shows the full log"
        )
        log_tail = "\n".join(tail[-10:])
        raise SandboxError(
            f"image build failed: {error}\n{log_tail}".rstrip(), where=where, fix=fix
        )
    found = image_id(client, tag)
    if found is None:
        raise SandboxError(
            "image build reported success but produced no image",
            where=where,
            fix="Retry; check `docker info` for daemon problems",
        )
    return found
