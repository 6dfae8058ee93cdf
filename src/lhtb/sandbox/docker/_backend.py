"""The Docker sandbox backend (docker SDK; every blocking call runs in a worker thread).

* :meth:`DockerBackend.prepare` builds the task's ``environment/`` into
  ``lhtb-env/<task>:<content hash>`` once and reuses it while the directory is
  unchanged (concurrent episodes of one task build once), or checks the task's
  ``docker_image``. Environment images are never removed by lhtb.
* :meth:`DockerBackend.start` runs the command ``sh -c "sleep infinity"`` under an
  init, keeping the image's ENTRYPOINT as Harbor does (an entrypoint that starts a
  service and then ``exec "$@"`` keeps serving), with the task's CPU/memory limits,
  network (``network_mode="none"`` without internet), workdir and env, waits for
  the healthcheck, and labels the container
  ``lhtb.run`` / ``lhtb.role`` / ``lhtb.task``.
* ``docker-compose.yaml`` environments go through the ``docker compose`` CLI
  (see :mod:`lhtb.sandbox.docker._compose`).
* :meth:`DockerBackend.cleanup` removes containers, compose projects and
  snapshot images by label.
"""

from __future__ import annotations

import contextlib
import functools
import time
import uuid
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import attrs

from lhtb._util.log import get_logger
from lhtb.errors import BackendUnavailableError, SandboxError, SetupError
from lhtb.images._bootstrap import (
    DockerfileImages,
    dockerfile_images,
    make_images_available,
    normalise_image,
)
from lhtb.images._recipes import how_to_get
from lhtb.sandbox._environment import environment_hash, find_compose_file
from lhtb.sandbox._healthcheck import wait_healthy
from lhtb.sandbox.archive import DEFAULT_ARCHIVE_LIMITS, ArchiveLimits
from lhtb.sandbox.base import ExecResult, SandboxBackend, SandboxSpec
from lhtb.sandbox.docker import _compose
from lhtb.sandbox.docker._channel import DEFAULT_CHANNEL_SETTINGS, ChannelSettings
from lhtb.sandbox.docker._images import (
    LABEL_HASH,
    LABEL_KIND,
    LABEL_ROLE,
    LABEL_RUN,
    LABEL_TASK,
    build_image,
    build_key,
    environment_tag,
    image_id,
    sanitise_name,
)
from lhtb.sandbox.docker._sandbox import DockerSandbox, translate_errors
from lhtb.sandbox.docker._staged import remove_staged
from lhtb.sandbox.host._freeze import thaw_before_removal
from lhtb.task._model import Task, resolve_env

__all__ = ["DockerBackend", "DockerSettings"]

log = get_logger(__name__)
T = TypeVar("T")

KEEPALIVE_COMMAND = ("sh", "-c", "sleep infinity")
"""The container's command, as in Harbor: the image's ENTRYPOINT (if any) runs it."""


@attrs.frozen
class DockerSettings:
    """Timeouts and limits of the Docker backend. Every external wait is bounded."""

    api_timeout_sec: float = 120.0
    """HTTP timeout of each Engine API call (a single read, not a whole exec)."""
    start_timeout_sec: float = 60.0
    """How long a new container may take to reach the running state."""
    pull_timeout_sec: float = 300.0
    """How long pulling a task's ``docker_image`` may take."""
    exec_timeout_grace_sec: float = 10.0
    """Host-side wait beyond an exec's in-container timeout before giving up on it."""
    control_timeout_sec: float = 60.0
    """Timeout of the freeze and thaw sweeps."""
    remove_timeout_sec: float = 60.0
    """Timeout of removing one container or compose project."""
    max_concurrent_execs: int = 64
    """Worker threads reserved for execs (each running exec holds one)."""
    archive_limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
    """Caps on exported and imported archives."""
    timeout_command: str = "timeout"
    """In-container program that enforces exec timeouts (GNU coreutils or busybox)."""
    pids_limit: int = 4096
    """Most processes (and threads) one container may hold: a fork bomb stops there."""
    host_freeze: bool = True
    """Freeze from the host via the container's cgroup when the daemon is local."""
    max_snapshot_bytes: int = 20 * 1024**3
    """Largest filesystem change (apparent size) a ``snapshot`` verifier pass commits."""
    snapshot_timeout_sec: float = 600.0
    """How long committing or removing a snapshot may take (on a busy host, much longer
    than other Engine calls)."""
    exec_channel: bool = True
    """Run agent-phase commands through a persistent in-sandbox helper (a few ms each
    instead of a ``docker exec``); images without ``python3`` fall back automatically.
    See :mod:`lhtb.sandbox.docker._channel`."""
    channel: ChannelSettings = DEFAULT_CHANNEL_SETTINGS
    """Timeouts and limits of the exec channel."""


class DockerBackend(SandboxBackend):
    """Sandboxes as Docker containers on the daemon ``docker.from_env()`` reaches."""

    name = "docker"

    def __init__(self, client: Any | None = None, *, settings: DockerSettings | None = None):
        self.settings = settings or DockerSettings()
        self._client = client
        self._build_locks: dict[str, anyio.Lock] = {}
        self._cpu_count: int | None = None
        self.exec_limiter = anyio.CapacityLimiter(self.settings.max_concurrent_execs)

    @property
    def client(self) -> Any:
        """The docker SDK client (created on first use).

        Raises:
            BackendUnavailableError: no daemon is reachable.
        """
        if self._client is None:
            try:
                import docker  # noqa: PLC0415

                client = docker.from_env(timeout=int(self.settings.api_timeout_sec))
                client.ping()
            except Exception as error:
                raise BackendUnavailableError(
                    f"cannot reach a Docker daemon ({error})",
                    where="docker backend",
                    fix="Start dockerd (`systemctl start docker`), or set DOCKER_HOST",
                ) from error
            self._client = client
        return self._client

    async def _call(self, where: str, func: Any, /, *args: Any, **kwargs: Any) -> Any:
        with translate_errors(where):
            return await anyio.to_thread.run_sync(functools.partial(func, *args, **kwargs))

    # -- images ----------------------------------------------------------------------------

    async def prepare(self, task: Task) -> str:
        """Return an image reference for ``task``, building its environment when needed.

        As in Harbor, ``environment/docker-compose.yaml`` (that exact name) makes a compose
        environment, merged over the Dockerfile or ``docker_image``; other compose file
        names are data. Built images are cached under a key of the environment's files
        and the ids of the images its Dockerfile starts from or copies from, so a
        changed base image means a rebuild.

        Raises:
            SetupError: an image the task needs is missing and cannot be made
                or pulled, or the Dockerfile cannot be built (not worth retrying).
            SandboxError: the build failed in a way a retry may fix.
            BackendUnavailableError: a compose environment without the compose CLI.
        """
        where = f"task {task.name}"
        directory = self._environment_dir(task, required=not task.environment.docker_image)
        compose_file = find_compose_file(directory) if directory else None
        if compose_file is not None:
            await anyio.to_thread.run_sync(_compose.require_cli)
            return _compose.reference(compose_file)
        if task.environment.docker_image:
            await self._ensure_image(task.environment.docker_image, where=where)
            return task.environment.docker_image
        assert directory is not None
        dockerfile = directory / "Dockerfile"
        if not dockerfile.is_file():
            raise SetupError(
                "environment has neither a Dockerfile nor a docker-compose.yaml",
                where=str(directory),
                fix="Add environment/Dockerfile, or set [environment].docker_image",
            )
        needed = dockerfile_images(dockerfile.read_text(encoding="utf-8"))
        image_ids = await self._ensure_dockerfile_images(needed, dockerfile=dockerfile)
        content_hash = await anyio.to_thread.run_sync(environment_hash, directory)
        cache_key = build_key(content_hash, image_ids)
        tag = environment_tag(task.name, cache_key)
        lock = self._build_locks.setdefault(tag, anyio.Lock())
        async with lock:
            existing = await self._call(where, image_id, self.client, tag)
            if existing is not None:
                log.debug("env_image_cached", task=task.name, tag=tag)
                return tag
            started = time.monotonic()
            labels = {LABEL_TASK: task.name, LABEL_KIND: "environment", LABEL_HASH: cache_key}
            await build_image(
                self.client,
                directory,
                tag=tag,
                labels=labels,
                timeout=task.environment.build_timeout_sec,
                where=str(directory),
            )
            log.info("env_image_built", task=task.name, tag=tag, seconds=time.monotonic() - started)
        return tag

    async def _ensure_dockerfile_images(
        self, needed: DockerfileImages, *, dockerfile: Path
    ) -> list[str]:
        """Make the Dockerfile's images present (offline recipes first); return their ids.

        Raises:
            SetupError: an image is missing and nothing can make it.
        """
        where = str(dockerfile)
        try:
            _, missing = await make_images_available(needed.all, client=self.client)
        except BackendUnavailableError as error:
            raise SetupError(
                f"could not make the image(s) {', '.join(needed.all)} this Dockerfile needs",
                where=where,
                fix=error.fix,
                detail=str(error),
            ) from error
        if missing:
            raise SetupError(
                _describe_missing(needed, missing), where=where, fix=how_to_get(missing)
            )
        ids = [await self._call(where, image_id, self.client, name) for name in needed.all]
        return [found or "" for found in ids]

    def _environment_dir(self, task: Task, *, required: bool = True) -> Path | None:
        directory = task.environment_dir or (task.path / "environment" if task.path else None)
        if directory is None or not directory.is_dir():
            if not required:
                return None
            raise SetupError(
                "task has no environment directory",
                where=f"task {task.name}",
                fix="Give the task an environment/ directory or [environment].docker_image",
            )
        return directory

    async def _ensure_image(self, reference: str, *, where: str) -> None:
        if await self._call(where, image_id, self.client, reference) is not None:
            return
        try:
            with anyio.fail_after(self.settings.pull_timeout_sec):
                await anyio.to_thread.run_sync(
                    functools.partial(self.client.images.pull, reference), abandon_on_cancel=True
                )
        except Exception as error:
            raise SetupError(
                f"the task's docker_image {reference!r} is not on this machine and could not "
                "be pulled",
                where=where,
                fix=how_to_get([reference]),
                detail=str(error),
            ) from error

    async def release(self, spec: SandboxSpec) -> None:
        """Remove a snapshot image made by :meth:`DockerSandbox.snapshot` (others are kept)."""
        await self._call(f"snapshot {spec.image}", self._release_sync, spec.image)

    def _release_sync(self, reference: str) -> None:
        import docker.errors  # noqa: PLC0415

        try:
            image = self.client.images.get(reference)
            if image.labels.get(LABEL_KIND) == "snapshot":
                # Deleting a layer can wait minutes for a busy daemon: the commit's timeout,
                # not the client's (a pass graded in full must not end on its cleanup).
                api = self.client.api
                url = api._url("/images/{0}", image.id)
                timeout = self.settings.snapshot_timeout_sec
                api._result(api._delete(url, params={"force": True}, timeout=timeout), True)
        except docker.errors.ImageNotFound:
            return

    # -- containers ------------------------------------------------------------------------

    async def start(self, spec: SandboxSpec) -> DockerSandbox:
        """Start a container from ``spec`` and wait for it to be running and healthy.

        Raises:
            SandboxError: the container did not start, or the healthcheck failed.
            EnvTemplateError: the task's env refers to an unset host variable.
        """
        task = spec.task
        where = f"task {task.name} ({spec.role})"
        env = resolve_env(task.environment.env, where=f"{where} [environment].env")
        labels = self.labels(spec)
        if _compose.is_reference(spec.image):
            if spec.network_of is not None:
                raise SandboxError(
                    "a compose environment cannot join another sandbox's network",
                    where=where,
                    fix="Give the task a tests/Dockerfile (the separate verifier's own image, "
                    'which can join the network), or use isolation = "shared"',
                )
            return await _compose.start(self, spec, labels=labels, env=env)
        cpus = await self._cpus(task.environment.cpus)
        memory = f"{task.environment.memory_mb}m"
        name = f"lhtb-{sanitise_name(task.name).replace('/', '-')[:40]}-{uuid.uuid4().hex[:10]}"
        container = await self._call(
            where,
            self.client.containers.create,
            spec.image,
            name=name,
            command=list(KEEPALIVE_COMMAND),
            init=True,
            detach=True,
            labels=labels,
            environment=env,
            working_dir=task.environment.workdir,
            network_mode=_network_mode(spec),
            cap_drop=["NET_RAW"],  # no packet sockets (ping uses ICMP datagram sockets)
            nano_cpus=int(cpus * 1e9),
            mem_limit=memory,
            memswap_limit=memory,
            pids_limit=self.settings.pids_limit,
        )
        sandbox = DockerSandbox(self, container.id, spec)
        try:
            await self._call(where, container.start)
            await self._wait_running(container, where=where)
            if task.environment.healthcheck is not None:
                await wait_healthy(
                    functools.partial(_shell_check, sandbox),
                    task.environment.healthcheck,
                    where=where,
                )
        except BaseException:
            await sandbox.destroy()
            raise
        log.info("sandbox_started", where=where, container=container.id[:12], image=spec.image)
        return sandbox

    def labels(self, spec: SandboxSpec) -> dict[str, str]:
        """The labels every resource started for ``spec`` carries."""
        return {LABEL_RUN: spec.run_id, LABEL_ROLE: spec.role, LABEL_TASK: spec.task.name}

    async def _cpus(self, wanted: float) -> float:
        if self._cpu_count is None:
            info = await self._call("docker info", self.client.info)
            self._cpu_count = int(info.get("NCPU") or 1)
        if wanted > self._cpu_count:
            log.warning("cpus_clamped", wanted=wanted, available=self._cpu_count)
            return float(self._cpu_count)
        return float(wanted)

    async def _wait_running(self, container: Any, *, where: str) -> None:
        deadline = time.monotonic() + self.settings.start_timeout_sec
        while True:
            await self._call(where, container.reload)
            state = container.attrs.get("State", {})
            if state.get("Running"):
                return
            if state.get("Status") in {"exited", "dead"}:
                logs = await self._call(where, container.logs, tail=20)
                entrypoint = container.attrs.get("Config", {}).get("Entrypoint")
                runs = f"ENTRYPOINT {entrypoint} with " if entrypoint else ""
                raise SetupError(
                    f"the container exited at once (exit code {state.get('ExitCode')}): the "
                    f"image runs {runs}command {list(KEEPALIVE_COMMAND)}, which must keep "
                    "running as it does in Harbor",
                    where=where,
                    fix="Give the image `sh` and `sleep` (coreutils or busybox), and an "
                    'ENTRYPOINT that ends with `exec "$@"` (or none)',
                    detail=logs.decode(errors="replace").strip()[-1500:],
                )
            if time.monotonic() > deadline:
                raise SandboxError(
                    f"container did not reach the running state in "
                    f"{self.settings.start_timeout_sec:.0f}s (status {state.get('Status')!r})",
                    where=where,
                    fix="Check that the Docker daemon is not overloaded (`docker info`)",
                )
            await anyio.sleep(0.05)

    async def remove_container(self, container_id: str, *, project: str | None = None) -> None:
        """Force-remove a container (or tear down its compose project); missing is fine."""
        import docker.errors  # noqa: PLC0415

        if project is not None:
            await _compose.down(self, project)
            return
        try:
            with anyio.fail_after(self.settings.remove_timeout_sec):
                await self._thaw_before_removal(container_id)
                await anyio.to_thread.run_sync(
                    functools.partial(
                        self.client.api.remove_container, container_id, force=True, v=True
                    ),
                    abandon_on_cancel=True,
                )
        except docker.errors.NotFound:
            return
        except docker.errors.APIError as error:
            if "already in progress" not in str(error):
                raise

    async def _thaw_before_removal(self, container_id: str) -> None:
        """Thaw a container frozen through its cgroup (a frozen process ignores SIGKILL)."""
        if not self.settings.host_freeze:
            return
        info = await anyio.to_thread.run_sync(
            self.client.api.inspect_container, container_id, abandon_on_cancel=True
        )
        pid = int(info.get("State", {}).get("Pid") or 0)
        if pid:
            await anyio.to_thread.run_sync(thaw_before_removal, pid, container_id)

    async def cleanup(self, run_id: str | None = None) -> int:
        """Remove containers, compose projects and snapshot images of ``run_id`` (all if None).

        Task environment images are never removed. Returns how many resources went.
        """
        selector = LABEL_RUN if run_id is None else f"{LABEL_RUN}={run_id}"
        where = f"cleanup {run_id or 'all runs'}"
        # ignore_removed: another run (or cleanup) may remove a listed container before it is read
        containers = await self._call(
            where,
            self.client.containers.list,
            all=True,
            filters={"label": selector},
            ignore_removed=True,
        )
        removed = 0
        projects = {
            c.labels[_compose.PROJECT_LABEL]
            for c in containers
            if _compose.PROJECT_LABEL in c.labels
        }
        for project in sorted(projects):
            await _compose.down(self, project)
        for container in containers:
            if _compose.PROJECT_LABEL not in container.labels:
                await self.remove_container(container.id)
            removed += 1
        # ids only: images.list would inspect each one, and another run may remove one first
        snapshot_ids = await self._call(
            where,
            self.client.api.images,
            filters={"label": [selector, f"{LABEL_KIND}=snapshot"]},
            quiet=True,
        )
        for snapshot_id in snapshot_ids:
            await self._call(where, self._remove_image, snapshot_id)
            removed += 1
        removed += await anyio.to_thread.run_sync(remove_staged, run_id)
        log.info("cleanup_finished", run_id=run_id, removed=removed)
        return removed

    def _remove_image(self, image_ref: str) -> None:
        import docker.errors  # noqa: PLC0415

        with contextlib.suppress(docker.errors.ImageNotFound):
            self.client.images.remove(image_ref, force=True)


def _network_mode(spec: SandboxSpec) -> str | None:
    """Another sandbox's network (``container:<id>``), none, or the default bridge."""
    if spec.network_of is not None:
        return f"container:{spec.network_of}"
    return None if spec.network_enabled else "none"


async def _shell_check(sandbox: DockerSandbox, command: str, timeout: float) -> ExecResult:
    return await sandbox.exec(command, timeout=timeout)


def _describe_missing(needed: DockerfileImages, missing: list[str]) -> str:
    """Say which missing images are bases (``FROM``) and which ``COPY --from`` sources."""
    bases = [name for name in missing if name in map(normalise_image, needed.bases)]
    copies = [name for name in missing if name not in bases]
    parts = []
    if bases:
        parts.append(f"base image(s) {', '.join(bases)} (FROM)")
    if copies:
        parts.append(f"image(s) {', '.join(copies)} that COPY --from copies from")
    return f"{' and '.join(parts)} are not on this machine, and no registry answers"
