"""Provisioning: run a task's Dockerfile subset in a build sandbox, keep its layer.

The build sandbox has network (like ``docker build``) and starts from an empty
upper layer over the host. ``FROM`` is recorded; ``ARG``/``ENV`` feed later
steps (``ENV`` persists into the image); ``WORKDIR``/``USER`` apply to later
steps; ``RUN`` runs inside the overlay; ``COPY``/``ADD`` stream a tar of the
build context in (see :mod:`lhtb.sandbox.local._dockerfile`). The finished upper
layer is renamed into the image store atomically, so concurrent builds of one
task race harmlessly.
"""

from __future__ import annotations

import functools
import json
import os
import posixpath
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from lhtb.errors import SandboxError
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.host._trees import remove_tree
from lhtb.sandbox.local import _dockerfile as dockerfile
from lhtb.sandbox.local._root import ImageMeta
from lhtb.task._model import Task

if TYPE_CHECKING:
    from lhtb.sandbox.local._backend import LocalBackend
    from lhtb.sandbox.local._sandbox import LocalSandbox

__all__ = ["provision"]


async def provision(
    backend: LocalBackend,
    task: Task,
    directory: Path,
    instructions: list[dockerfile.Instruction],
    image_id: str,
    content_hash: str,
) -> None:
    """Run ``instructions`` in a build sandbox and store its upper layer as ``image_id``.

    Raises:
        SandboxError: a step failed (the message names the Dockerfile line).
        UnsupportedFeatureError: a COPY source is outside the context or missing.
    """
    empty = ImageMeta(id="", kind="environment", task=task.name)
    spec = SandboxSpec(image="", task=task, run_id=f"build-{image_id}", role="build")
    sandbox = await backend.launch(spec, empty, layer=None, network=True, task_env=False)
    variables: dict[str, str] = {}
    env: dict[str, str] = {}
    workdir = "/"
    user: str | None = None
    base: str | None = None
    dockerfile_path = str(directory / "Dockerfile")
    try:
        for item in instructions:
            where = f"{dockerfile_path}:{item.line}"
            args = item.args
            if item.keyword == "FROM":
                base = args.split()[0] if args else None
            elif item.keyword == "ARG":
                name, _, default = args.partition("=")
                variables.setdefault(name.strip(), dockerfile.substitute(default, variables))
            elif item.keyword == "ENV":
                for key, value in dockerfile.parse_env(args).items():
                    env[key] = dockerfile.substitute(value.strip('"'), {**variables, **env})
                sandbox.env.update(env)
            elif item.keyword == "WORKDIR":
                path = dockerfile.substitute(args, {**variables, **env})
                workdir = posixpath.normpath(posixpath.join(workdir, path))
                await _step(sandbox, ["mkdir", "-p", "--", workdir], where, None, "/")
            elif item.keyword == "USER":
                user = dockerfile.substitute(args, {**variables, **env}).strip() or None
            elif item.keyword == "RUN":
                command = json.loads(args) if args.startswith("[") else ["sh", "-c", args]
                build_env = {**variables, **env}
                await _step(sandbox, command, where, user, workdir, build_env)
            elif item.keyword in {"COPY", "ADD"}:
                await _copy(sandbox, directory, item, workdir, {**variables, **env}, where)
        await sandbox.stop_processes()
        target = backend.images_dir / image_id
        staging = backend.images_dir / f".tmp-{image_id}-{uuid.uuid4().hex[:6]}"
        staging.mkdir()
        os.rename(sandbox.upper, staging / "layer")  # noqa: PTH104
        meta = ImageMeta(
            id=image_id,
            kind="environment",
            task=task.name,
            workdir=workdir,
            env=env,
            user=user,
            base=base,
            content_hash=content_hash,
            created=time.time(),
        )
        meta.save(staging)
        try:
            os.rename(staging, target)  # noqa: PTH104
        except OSError:
            remove_tree(staging)  # another process built it first
    finally:
        await sandbox.destroy()


async def _step(
    sandbox: LocalSandbox,
    command: list[str],
    where: str,
    user: str | None,
    cwd: str,
    env: dict[str, str] | None = None,
) -> None:
    result = await sandbox.exec(
        command,
        user=user,
        cwd=cwd,
        env=env,
        timeout=sandbox.spec.task.environment.build_timeout_sec,
    )
    if not result.ok:
        tail = (result.stderr_text or result.stdout_text).strip()[-1500:]
        raise SandboxError(
            f"build step failed (exit code {result.exit_code}"
            f"{', timed out' if result.timed_out else ''}): {tail}",
            where=where,
            fix="Fix the Dockerfile step, or use `--backend docker` if it needs the base image",
        )


async def _copy(
    sandbox: LocalSandbox,
    context: Path,
    item: dockerfile.Instruction,
    workdir: str,
    variables: dict[str, str],
    where: str,
) -> None:
    flags, sources, destination = dockerfile.split_copy(dockerfile.substitute(item.args, variables))
    archive = await anyio.to_thread.run_sync(
        functools.partial(
            dockerfile.build_context_tar, context, sources, destination, workdir, where=where
        )
    )
    await sandbox.import_(archive, dest="/")
    target = posixpath.normpath(posixpath.join(workdir, destination))
    for flag in flags:
        name, _, value = flag.partition("=")
        tool = {"--chown": "chown", "--chmod": "chmod"}[name]
        await _step(sandbox, [tool, "-R", value, "--", target], where, None, "/")
