"""The local sandbox backend: Linux namespaces and an overlay of the host, no daemon.

Each sandbox is a long-lived init process (:mod:`lhtb.sandbox.local._sandbox_init`)
in its own mount, PID, IPC, UTS and network namespaces: loopback only, plus
user-mode networking (``slirp4netns``, no access to the host's loopback) when the
task allows internet. Its root is an overlay: the
host's ``/`` read-only below, a per-sandbox writable upper above, with fresh
``/proc``, ``/sys`` (read-only) and ``/dev``, and the host's sensitive paths
hidden (see :func:`lhtb.sandbox.local._root.mask_paths`). Commands run with
Docker's default capabilities minus ``CAP_MKNOD`` and ``CAP_NET_RAW``. As a normal user the
sandbox lives in a user namespace mapping its root to the caller.

* :meth:`LocalBackend.prepare` runs the task's Dockerfile subset (see
  :mod:`lhtb.sandbox.local._dockerfile`) once per content hash of
  ``environment/`` and stores the resulting upper layer as an image.
* :meth:`LocalBackend.start` copies that layer into a fresh upper and starts
  the init; :meth:`LocalSandbox.snapshot` copies the upper back into an image.
* :meth:`LocalBackend.cleanup` kills, unmounts (the mounts live and die with
  the sandbox's mount namespace) and deletes whatever a run left behind.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import sys
import time
import uuid
from pathlib import Path

import anyio
import anyio.to_thread
import attrs

from lhtb._util.log import get_logger
from lhtb.errors import ArchiveError, BackendUnavailableError, SandboxError, SetupError
from lhtb.sandbox._environment import find_compose_file
from lhtb.sandbox._healthcheck import wait_healthy
from lhtb.sandbox.archive import DEFAULT_ARCHIVE_LIMITS, ArchiveLimits
from lhtb.sandbox.base import ExecResult, SandboxBackend, SandboxSpec
from lhtb.sandbox.host._trees import copy_tree, remove_tree, tree_size
from lhtb.sandbox.local import _dockerfile as dockerfile
from lhtb.sandbox.local._cgroups import Freezer, Limits, process_start_time
from lhtb.sandbox.local._network import start_slirp
from lhtb.sandbox.local._process import (
    DEFAULT_PATH,
    FIX_USERNS,
    read_json,
    remove_sandbox_sync,
    spawn_init,
)
from lhtb.sandbox.local._provision import provision
from lhtb.sandbox.local._root import (
    IMAGE_PREFIX,
    PASSWORD_FILES,
    ImageMeta,
    default_state_root,
    mask_paths,
    system_dirs,
)
from lhtb.sandbox.local._sandbox import LocalSandbox
from lhtb.task._model import Task, resolve_env

__all__ = ["LocalBackend", "LocalSettings", "check_host"]

log = get_logger(__name__)

_LAYER_FORMAT = "2"
"""Bumped whenever stored layers change meaning (their ids change, old ones are unused)."""
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"


@attrs.frozen
class LocalSettings:
    """Timeouts, limits and paths of the local backend. Every external wait is bounded."""

    state_root: Path | None = None
    """Images and sandboxes (default: :func:`default_state_root`)."""
    start_timeout_sec: float = 30.0
    """How long a new sandbox's init may take to report ready."""
    exec_timeout_grace_sec: float = 10.0
    """Host-side wait beyond an exec's timeout (enforced by the init) before giving up."""
    control_timeout_sec: float = 60.0
    """Timeout of freeze/thaw and of one export/import step (times ten)."""
    max_concurrent_execs: int = 64
    """Worker threads reserved for execs (each running exec holds one)."""
    archive_limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
    """Caps on exported and imported archives."""
    max_snapshot_bytes: int = 20 * 1024**3
    """Largest writable layer (apparent size) a ``snapshot`` copies."""
    pids_limit: int = 4096
    """Most processes and threads the agent's commands may hold at once (a fork bomb stops
    there; on cgroup v1 the init keeps a few more slots to export the agent's files)."""
    extra_masks: tuple[str, ...] = ()
    """More host paths to hide from every sandbox (e.g. an ``output_dir`` elsewhere)."""
    python: str = sys.executable
    """The interpreter that runs each sandbox's init (standard library only)."""


def check_host(*, rootless: bool | None = None, sysctl_root: Path = Path("/proc/sys")) -> None:
    """Raise when this host cannot run local sandboxes, saying exactly what is missing.

    ``rootless`` defaults to "not running as root"; ``sysctl_root`` is where the
    kernel settings are read (tests point it elsewhere).

    Raises:
        BackendUnavailableError: not Linux, no overlayfs, missing tools, or (as a
            normal user) no unprivileged user namespaces.
    """
    where = "local backend"
    if not sys.platform.startswith("linux"):
        raise BackendUnavailableError(
            f"needs Linux namespaces, this is {sys.platform}",
            where=where,
            fix="Use the Docker backend (`--backend docker`)",
        )
    filesystems = Path("/proc/filesystems").read_text()
    if "overlay" not in filesystems:
        raise BackendUnavailableError(
            "the kernel has no overlay filesystem",
            where=where,
            fix="Load it with `modprobe overlay`, or use the Docker backend",
        )
    for tool in ("sh", "tar", "cp"):
        if shutil.which(tool) is None:
            raise BackendUnavailableError(
                f"`{tool}` is not installed on the host", where=where, fix=f"Install {tool}"
            )
    if rootless is None:
        rootless = os.geteuid() != 0
    if not rootless:
        return
    problems = []
    for name, bad in (
        ("kernel/unprivileged_userns_clone", "0"),
        ("user/max_user_namespaces", "0"),
        ("kernel/apparmor_restrict_unprivileged_userns", "1"),
    ):
        with contextlib.suppress(OSError):
            if (sysctl_root / name).read_text().strip() == bad:
                problems.append(f"{name.replace('/', '.')}={bad}")
    if problems:
        raise BackendUnavailableError(
            f"not root and unprivileged user namespaces are disabled ({', '.join(problems)})",
            where=where,
            fix=FIX_USERNS,
        )


def _sanitise(name: str) -> str:
    cleaned = "".join(c if c in _NAME_CHARS else "-" for c in name.lower()).strip("-")
    return cleaned[:40] or "task"


class LocalBackend(SandboxBackend):
    """Sandboxes as namespaced processes over an overlay of the host filesystem."""

    name = "local"

    def __init__(self, settings: LocalSettings | None = None) -> None:
        self.settings = settings or LocalSettings()
        self.state_root = self.settings.state_root or default_state_root()
        self.rootless = os.geteuid() != 0
        self.exec_limiter = anyio.CapacityLimiter(self.settings.max_concurrent_execs)
        self._build_locks: dict[str, anyio.Lock] = {}
        self._checked = False

    @property
    def images_dir(self) -> Path:
        return self.state_root / "images"

    @property
    def sandboxes_dir(self) -> Path:
        return self.state_root / "sandboxes"

    def _check(self) -> None:
        if not self._checked:
            check_host(rootless=self.rootless)
            self.images_dir.mkdir(parents=True, exist_ok=True)
            self.sandboxes_dir.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):
                self.state_root.chmod(0o700)
            self._checked = True

    # -- images ----------------------------------------------------------------------------

    async def prepare(self, task: Task) -> str:
        """Provision the task's ``environment/Dockerfile`` (cached by content hash).

        Raises:
            BackendUnavailableError: the host cannot run local sandboxes.
            UnsupportedFeatureError: the Dockerfile leaves the supported subset.
            SetupError: the task needs a registry image or compose (Docker only).
            SandboxError: a step failed.
        """
        from lhtb.sandbox._environment import environment_hash  # noqa: PLC0415

        self._check()
        where = f"task {task.name}"
        if task.environment.docker_image:
            raise SetupError(
                f"the task runs the prebuilt image {task.environment.docker_image!r}",
                where=where,
                fix="The local backend builds from environment/Dockerfile only; use "
                "`--backend docker`",
            )
        directory = task.environment_dir or (task.path / "environment" if task.path else None)
        if directory is not None and find_compose_file(directory) is not None:
            # As in Harbor, docker-compose.yaml is the environment even beside a Dockerfile.
            raise SetupError(
                "the environment is a docker-compose.yaml (compose environments need Docker)",
                where=str(directory),
                fix="Use `--backend docker`",
            )
        if directory is None or not (directory / "Dockerfile").is_file():
            raise SetupError(
                "environment has no Dockerfile",
                where=str(directory or where),
                fix="Add environment/Dockerfile, or use `--backend docker`",
            )
        instructions = await anyio.to_thread.run_sync(
            dockerfile.parse_dockerfile, directory / "Dockerfile"
        )
        content_hash = await anyio.to_thread.run_sync(environment_hash, directory)
        salted = hashlib.sha256(f"{_LAYER_FORMAT}\0{content_hash}".encode()).hexdigest()
        image_id = f"env-{_sanitise(task.name)}-{salted[:16]}"
        lock = self._build_locks.setdefault(image_id, anyio.Lock())
        async with lock:
            if (self.images_dir / image_id / "image.json").is_file():
                log.debug("env_image_cached", task=task.name, image=image_id)
                return IMAGE_PREFIX + image_id
            started = time.monotonic()
            with anyio.fail_after(task.environment.build_timeout_sec):
                await provision(self, task, directory, instructions, image_id, content_hash)
            log.info(
                "env_image_built",
                task=task.name,
                image=image_id,
                seconds=time.monotonic() - started,
            )
        return IMAGE_PREFIX + image_id

    async def store_snapshot(self, sandbox: LocalSandbox) -> SandboxSpec:
        """Copy ``sandbox``'s upper layer into a snapshot image and return a spec for it.

        Raises:
            ArchiveError: the layer is larger than ``LocalSettings.max_snapshot_bytes``.
        """
        spec = sandbox.spec
        limit = self.settings.max_snapshot_bytes
        size = await anyio.to_thread.run_sync(tree_size, sandbox.upper)
        if size > limit:
            raise ArchiveError(
                f"the sandbox's filesystem changes ({size} bytes) exceed the snapshot cap "
                f"({limit} bytes)",
                where=f"local sandbox {sandbox.id}",
                fix="Keep the working files small, or raise LocalSettings.max_snapshot_bytes",
            )
        image_id = f"snap-{_sanitise(spec.run_id)[:30]}-{uuid.uuid4().hex[:8]}"
        target = self.images_dir / image_id
        started = time.monotonic()

        def store() -> None:
            target.mkdir(parents=True)
            copy_tree(sandbox.upper, target / "layer")
            ImageMeta(
                id=image_id,
                kind="snapshot",
                task=spec.task.name,
                workdir=sandbox.workdir,
                env=sandbox.env,
                run_id=spec.run_id,
                created=time.time(),
            ).save(target)

        await anyio.to_thread.run_sync(store)
        log.info("sandbox_snapshot", sandbox=sandbox.id, seconds=time.monotonic() - started)
        return SandboxSpec(
            image=IMAGE_PREFIX + image_id,
            task=spec.task,
            run_id=spec.run_id,
            role="snapshot",
            network=spec.network,
        )

    async def release(self, spec: SandboxSpec) -> None:
        """Remove a snapshot image (environment images are kept)."""
        image_id = spec.image.removeprefix(IMAGE_PREFIX)
        directory = self.images_dir / image_id
        if not image_id or "/" in image_id or not (directory / "image.json").is_file():
            return
        if ImageMeta.load(directory).kind == "snapshot":
            await anyio.to_thread.run_sync(remove_tree, directory)

    # -- sandboxes -------------------------------------------------------------------------

    async def start(self, spec: SandboxSpec) -> LocalSandbox:
        """Start a sandbox from ``spec`` (an image from :meth:`prepare` or a snapshot).

        Raises:
            BackendUnavailableError: the host cannot run local sandboxes.
            SandboxError: the image is unknown, the init failed, the healthcheck failed,
                or ``spec.network_of`` is set (not supported here).
            EnvTemplateError: the task's env refers to an unset host variable.
        """
        if spec.network_of is not None:
            raise SandboxError(
                "the local backend cannot start a sandbox in another sandbox's network",
                where=f"task {spec.task.name} ({spec.role})",
                fix='Live verification with isolation = "separate" needs `--backend docker`; '
                'or use isolation = "shared"',
            )
        self._check()
        image_id = spec.image.removeprefix(IMAGE_PREFIX)
        directory = self.images_dir / image_id
        if not spec.image.startswith(IMAGE_PREFIX) or not (directory / "image.json").is_file():
            raise SandboxError(
                f"unknown local image {spec.image!r}",
                where=f"task {spec.task.name}",
                fix="Start from the reference LocalBackend.prepare() or snapshot() returned",
            )
        meta = ImageMeta.load(directory)
        sandbox = await self.launch(
            spec, meta, layer=directory / "layer", network=spec.network_enabled, task_env=True
        )
        try:
            if sandbox.workdir != "/":
                made = await sandbox.exec(["mkdir", "-p", "--", sandbox.workdir], cwd="/")
                if not made.ok:
                    raise SandboxError(  # noqa: TRY301 - cleaned up below
                        f"cannot create workdir {sandbox.workdir}: {made.stderr_text.strip()}",
                        where=f"task {spec.task.name}",
                    )
            if spec.task.environment.healthcheck is not None:
                await wait_healthy(
                    functools.partial(_shell_check, sandbox),
                    spec.task.environment.healthcheck,
                    where=f"task {spec.task.name} ({spec.role})",
                )
        except BaseException:
            await sandbox.destroy()
            raise
        return sandbox

    async def launch(
        self,
        spec: SandboxSpec,
        meta: ImageMeta,
        *,
        layer: Path | None,
        network: bool,
        task_env: bool,
    ) -> LocalSandbox:
        task = spec.task
        sandbox_id = f"lb-{uuid.uuid4().hex[:12]}"
        directory = self.sandboxes_dir / sandbox_id
        env = {"PATH": DEFAULT_PATH, "HOSTNAME": sandbox_id, **meta.env}
        if task_env:
            env.update(
                resolve_env(task.environment.env, where=f"task {task.name} [environment].env")
            )
        workdir = (task.environment.workdir if task_env else None) or meta.workdir or "/"
        started = time.monotonic()
        freezer = Freezer(0, None)
        try:
            directory.mkdir(parents=True)
            (directory / "sandbox.json").write_text(
                json.dumps(
                    {
                        "id": sandbox_id,
                        "run_id": spec.run_id,
                        "role": spec.role,
                        "task": task.name,
                        "image": spec.image,
                        "created": time.time(),
                    }
                )
            )
            freezer = await anyio.to_thread.run_sync(Freezer.detect, sandbox_id)
            limits = Limits()
            if task_env:
                limits = await anyio.to_thread.run_sync(
                    functools.partial(
                        Limits.apply,
                        sandbox_id,
                        cpus=task.environment.cpus,
                        memory_mb=task.environment.memory_mb,
                        pids=self.settings.pids_limit,
                    )
                )
            await anyio.to_thread.run_sync(self._prepare_dirs, directory, layer)
            empty, hidden = await anyio.to_thread.run_sync(
                functools.partial(mask_paths, task, self.state_root, self.settings.extra_masks)
            )
            config = {
                "upper": str(directory / "upper"),
                "work": str(directory / "work"),
                "merged": str(directory / "merged"),
                "socket": str(directory / "control.sock"),
                "mask_dirs": empty,
                "hidden": hidden,
                "scrub": [p for p in PASSWORD_FILES if Path(p).is_file()],
                "network": network,
                "hostname": sandbox_id,
                "rootless": self.rootless,
                "cgroup_procs": freezer.procs(),
                "limit_procs": limits.procs(),
                "agent_limit_procs": limits.agent_procs(),
                "agent_pids_counts": limits.agent_pids_counts(),
                "cap_last_cap": int(Path("/proc/sys/kernel/cap_last_cap").read_text()),
                "skeleton": str(self._skeleton()),
                "system_dirs": system_dirs(),
            }
            (directory / "init.json").write_text(json.dumps(config))
            monitor, init_pid = await anyio.to_thread.run_sync(
                spawn_init,
                self.settings.python,
                directory,
                spec.task.name,
                self.settings.start_timeout_sec,
            )
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self.remove_sandbox(directory)
            raise
        missing = {"memory", "cpu"} - set(limits.enforced)
        if task_env and missing:
            log.warning("limits_not_enforced", sandbox=sandbox_id, missing=sorted(missing))
        record = json.loads((directory / "sandbox.json").read_text())
        record.update(
            {
                "init_pid": init_pid,
                "init_start": process_start_time(init_pid),
                "monitor_pid": monitor.pid,
                "monitor_start": process_start_time(monitor.pid),
                "freezer": [freezer.version, str(freezer.base) if freezer.base else None],
            }
        )
        (directory / "sandbox.json").write_text(json.dumps(record))
        if network:
            try:
                slirp = await anyio.to_thread.run_sync(
                    functools.partial(
                        start_slirp,
                        init_pid,
                        directory,
                        rootless=self.rootless,
                        timeout=self.settings.start_timeout_sec,
                    )
                )
                record.update(slirp_pid=slirp.pid, slirp_start=process_start_time(slirp.pid))
                (directory / "sandbox.json").write_text(json.dumps(record))
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await self.remove_sandbox(directory)
                raise
        sandbox = LocalSandbox(
            self,
            sandbox_id,
            spec,
            directory=directory,
            freezer=freezer,
            env=env,
            workdir=workdir,
            init_pid=init_pid,
            monitor=monitor,
        )
        log.info(
            "sandbox_started",
            sandbox=sandbox_id,
            task=task.name,
            role=spec.role,
            seconds=round(time.monotonic() - started, 4),
        )
        return sandbox

    def _skeleton(self) -> Path:
        """An empty directory: the lower layer of ``/`` in user-namespace mode."""
        skeleton = self.state_root / "skeleton"
        skeleton.mkdir(mode=0o755, exist_ok=True)
        return skeleton

    @staticmethod
    def _prepare_dirs(directory: Path, layer: Path | None) -> None:
        if layer is None:
            (directory / "upper").mkdir()
        else:
            copy_tree(layer, directory / "upper")
        (directory / "work").mkdir()
        (directory / "merged").mkdir()

    async def remove_sandbox(self, directory: Path) -> None:
        """Kill a sandbox's processes, delete its cgroups and files (shielded by callers)."""
        await anyio.to_thread.run_sync(remove_sandbox_sync, directory)

    async def cleanup(self, run_id: str | None = None) -> int:
        """Kill and remove the sandboxes and snapshot images of ``run_id`` (all runs if None).

        Environment images are kept. Returns how many resources went.
        """
        removed = 0
        with anyio.CancelScope(shield=True):
            for directory in sorted(self.sandboxes_dir.glob("lb-*")):
                record = read_json(directory / "sandbox.json")
                if run_id is not None and record.get("run_id") != run_id:
                    continue
                await self.remove_sandbox(directory)
                removed += 1
            for directory in sorted(self.images_dir.glob("*")):
                record = read_json(directory / "image.json")
                stale_tmp = directory.name.startswith(".tmp-") and run_id is None
                is_snapshot = record.get("kind") == "snapshot"
                if stale_tmp or (
                    is_snapshot and (run_id is None or record.get("run_id") == run_id)
                ):
                    await anyio.to_thread.run_sync(remove_tree, directory)
                    removed += 1
        log.info("cleanup_finished", backend="local", run_id=run_id, removed=removed)
        return removed


async def _shell_check(sandbox: LocalSandbox, command: str, timeout: float) -> ExecResult:
    return await sandbox.exec(command, timeout=timeout)
