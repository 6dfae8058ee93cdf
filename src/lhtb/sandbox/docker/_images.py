"""Task environment images: content-hash tags, builds with a deadline, presence checks.

The blocking functions run in worker threads of :mod:`lhtb.sandbox.docker`;
:func:`build_image` is async so that it can be cancelled in the middle of a build.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from lhtb._util.log import get_logger
from lhtb.errors import SandboxError, SetupError
from lhtb.images._build import StreamedBuild

__all__ = [
    "ENV_IMAGE_REPO",
    "LABEL_KIND",
    "LABEL_ROLE",
    "LABEL_RUN",
    "LABEL_TASK",
    "build_error",
    "build_image",
    "build_key",
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

log = get_logger(__name__)

_COMPONENT = re.compile(r"[^a-z0-9]+")


def sanitise_name(name: str) -> str:
    """A task name turned into a valid image repository path (``org/name`` kept)."""
    parts = [_COMPONENT.sub("-", part.lower()).strip("-") for part in name.split("/")]
    cleaned = "/".join(part for part in parts if part)
    return cleaned or "task"


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


def build_key(content_hash: str, image_ids: list[str]) -> str:
    """The cache key of a built environment: its files and the ids of the images it uses."""
    digest = hashlib.sha256(content_hash.encode())
    for found in image_ids:
        digest.update(f"\0{found}".encode())
    return digest.hexdigest()


async def build_image(
    client: Any,
    directory: Path,
    *,
    tag: str,
    labels: dict[str, str],
    timeout: float,
    where: str,
) -> str:
    """Build ``directory`` (no pull: bases must be local) and return the image id.

    Cancelling (Ctrl-C) returns at once: the connection to the daemon is shut, which
    makes the daemon stop the build and remove its intermediate container.

    Raises:
        SetupError: the Dockerfile cannot be built here (an image it needs is
            missing, a feature the classic builder lacks, a syntax error).
        SandboxError: the build failed otherwise (a retry may pass) or ran past ``timeout``.
    """
    build = StreamedBuild(client, directory, tag=tag, labels=labels, timeout=timeout)
    try:
        await anyio.to_thread.run_sync(build.run, abandon_on_cancel=True)
    except BaseException:
        build.abort()
        raise
    if build.error is not None:
        raise build_error(build.error, build.tail, directory=directory, where=where)
    found = await anyio.to_thread.run_sync(image_id, client, tag)
    if found is None:
        raise SandboxError(
            "image build reported success but produced no image",
            where=where,
            fix="Retry; check `docker info` for daemon problems",
        )
    return found


_MISSING_IMAGE = ("pull access denied", "not found", "no such host", "manifest unknown")
_MISSING_CONTEXT_FILE = ("copy failed:", "add failed:", "failed to compute cache key")
"""Errors of a COPY/ADD source missing from the build context, classic builder and BuildKit
(their text also says "not found", so they are told apart from a missing image first)."""
_UNBUILDABLE = (
    "requires buildkit",
    "dockerfile parse error",
    "unknown instruction",
    "unknown flag",
    "failed to process",
)


def build_error(error: str, tail: list[str], *, directory: Path, where: str) -> SandboxError:
    """A failed build as a typed error: setup errors where a retry cannot help."""
    log_tail = "\n".join(tail[-10:])
    detail = f"{error}\n{log_tail}".rstrip()
    lowered = error.lower()
    if any(marker in lowered for marker in _MISSING_CONTEXT_FILE):
        return SetupError(
            f"a COPY or ADD source is not in the build context {directory}: {error}",
            where=where,
            fix=f"Add the file under {directory} (the build context), or fix the path in the "
            "Dockerfile; a .dockerignore there may exclude it",
            detail=detail,
        )
    if "ran past" not in lowered and any(m in lowered for m in _MISSING_IMAGE):
        return SetupError(
            "the image build needs an image that is not on this machine, and no registry answers",
            where=where,
            fix="Run `lhtb images bootstrap` on the task directory: it makes the images it "
            "can and says how to load the others",
            detail=detail,
        )
    if any(m in lowered for m in _UNBUILDABLE):
        return SetupError(
            f"the Dockerfile uses something Docker's classic builder cannot build: {error}",
            where=where,
            fix="Rewrite that instruction without BuildKit-only features (RUN --mount, "
            "heredocs), or give the task a prebuilt [environment].docker_image",
            detail=detail,
        )
    return SandboxError(
        f"image build failed: {error}\n{log_tail}".rstrip(),
        where=where,
        fix=f"Fix the Dockerfile; `docker build {directory}` shows the full log",
    )
