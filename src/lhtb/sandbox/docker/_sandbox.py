"""A running Docker sandbox: exec, files, freeze/thaw, export/import, snapshot, destroy.

The harness side is :class:`DockerSandbox`; agents get :class:`DockerAgentSandbox`
from :meth:`DockerSandbox.agent_view`, which runs as the task's ``[agent].user``
and does its file operations with that user's permissions.
"""

from __future__ import annotations

import contextlib
import functools
import io
import posixpath
import tarfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio
import anyio.to_thread

from lhtb._util.log import get_logger
from lhtb.errors import ArchiveError, ExecError, SandboxError, SandboxUnavailableError
from lhtb.sandbox import _scripts
from lhtb.sandbox.archive import repack, validate_archive
from lhtb.sandbox.base import (
    DEFAULT_OUTPUT_LIMIT,
    Command,
    ExecResult,
    ManagedSandbox,
    Sandbox,
    SandboxSpec,
    SnapshotMaker,
    Terminal,
    agent_exec_user,
)
from lhtb.sandbox.docker._channel import READ_SCRIPT, ChannelManager
from lhtb.sandbox.docker._exec import RawExec, run_exec
from lhtb.sandbox.docker._images import (
    LABEL_KIND,
    LABEL_ROLE,
    LABEL_RUN,
    LABEL_TASK,
    SNAPSHOT_REPO,
    sanitise_name,
)
from lhtb.sandbox.docker._staged import ContainerLayer, StagedChanges, commit_container
from lhtb.sandbox.docker._terminal import start_terminal
from lhtb.sandbox.host._export import export_on_host
from lhtb.sandbox.host._freeze import CgroupFreezer, HostFreezeError, cgroup_procs_file, host_sweep
from lhtb.sandbox.host._tree_usage import check_export_size

if TYPE_CHECKING:
    from lhtb.sandbox.docker._backend import DockerBackend

__all__ = ["DockerAgentSandbox", "DockerSandbox", "translate_errors"]

log = get_logger(__name__)
_DYING_GRACE_SEC = 1.0
T = TypeVar("T")

ROOT = "0"
_KILLED = 128 + 9
_EXPORT_CHUNK = 1024 * 1024
_GO_MODE_DIR = 1 << 31
_GO_MODE_SYMLINK = 1 << 27
_START_FAILURE_MARKERS = (
    b"OCI runtime exec failed",
    b"unable to find user",
    b"no users found",
    b"no matching entries in passwd file",
)


@contextlib.contextmanager
def translate_errors(where: str) -> Iterator[None]:
    """Map docker SDK errors to lhtb's: a gone or stopped container is unavailable."""
    import docker.errors  # noqa: PLC0415 - the SDK stays at the boundary
    import requests.exceptions  # noqa: PLC0415

    try:
        yield
    except docker.errors.NotFound as error:
        text = str(error.explanation or error)
        if "container" not in text.lower():
            raise SandboxError(f"Docker Engine error: {text}", where=where) from error
        raise SandboxUnavailableError(
            f"container not found ({text})",
            where=where,
            fix="The sandbox was removed; start a new one",
        ) from error
    except docker.errors.APIError as error:
        text = str(error.explanation or error)
        if error.status_code == 409 and ("not running" in text or "paused" in text):
            raise SandboxUnavailableError(
                f"container is not running ({text})",
                where=where,
                fix="The sandbox stopped (crashed or was killed); start a new one",
            ) from error
        raise SandboxError(f"Docker Engine error: {text}", where=where) from error
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as error:
        # The daemon, not the sandbox, is in trouble: an infrastructure error (retryable),
        # never blamed on the agent.
        raise SandboxError(
            f"the Docker daemon did not answer ({error})",
            where=where,
            fix="Check that dockerd is running and not overloaded (`docker info`), then retry",
        ) from error


def _argv(command: Command) -> list[str]:
    argv = ["sh", "-c", command] if isinstance(command, str) else [str(arg) for arg in command]
    if not argv or (isinstance(command, str) and not command.strip()):
        raise ExecError("empty command", where="exec", fix="Pass a shell string or argv list")
    return argv


class DockerSandbox(ManagedSandbox):
    """The harness's handle on one container. Harness commands run as root by default."""

    def __init__(self, backend: DockerBackend, container_id: str, spec: SandboxSpec) -> None:
        self._backend = backend
        self._id = container_id
        self.spec = spec
        self._destroyed = False
        self.compose_project: str | None = None
        self._view: DockerAgentSandbox | None = None
        self._channels: ChannelManager | None = None
        self._host_freeze: CgroupFreezer | Path | Literal[False] | None = None
        """How the host freezes this container (found on first use): its freezer cgroup,
        else a SIGSTOP sweep over this ``cgroup.procs``; False: only from inside."""
        self._host_frozen = False
        """The host holds every process of the container stopped (until the thaw)."""
        self._layer: ContainerLayer | None = None
        """Its image, configuration and upper directory, when the host sees them."""

    # -- plumbing --------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self._id

    @property
    def _where(self) -> str:
        return f"sandbox {self._id[:12]} ({self.spec.task.name}, {self.spec.role})"

    async def _call(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking SDK call in a thread, errors translated."""
        if self._destroyed:
            raise SandboxUnavailableError(
                "sandbox was destroyed", where=self._where, fix="Start a new sandbox"
            )
        with translate_errors(self._where):
            return await anyio.to_thread.run_sync(functools.partial(func, *args, **kwargs))

    def agent_view(self) -> Sandbox:
        if self._view is None:
            self._view = DockerAgentSandbox(self, self.spec.task.agent.user)
        return self._view

    # -- exec ------------------------------------------------------------------------------

    async def exec(
        self,
        command: Command,
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str | int | None = None,
        stdin: bytes | str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
    ) -> ExecResult:
        """Run a command (as root unless ``user`` is given). See :meth:`Sandbox.exec`.

        Raises:
            SandboxUnavailableError: the container is gone or stopped.
            ExecError: the command could not be started (unknown user, missing
                working directory or executable, no ``timeout`` in the image).
        """
        argv = _argv(command)
        if timeout is not None and timeout <= 0:
            raise ExecError(f"timeout must be positive, got {timeout}", where=self._where)
        if output_limit < 0:
            raise ExecError(f"output_limit must be >= 0, got {output_limit}", where=self._where)
        data = stdin.encode() if isinstance(stdin, str) else stdin
        grace = self._backend.settings.exec_timeout_grace_sec
        if self._destroyed:
            raise SandboxUnavailableError("sandbox was destroyed", where=self._where)
        fast = await self._channel_run(
            argv, stdin=data, user=user, cwd=cwd, env=env, timeout=timeout, limit=output_limit
        )
        if fast is not None:
            return fast
        if timeout is not None:
            argv = [self._backend.settings.timeout_command, "-s", "KILL", f"{timeout:.3f}", *argv]
        call = functools.partial(
            run_exec,
            self._backend.client.api,
            self._id,
            argv,
            stdin=data,
            user=ROOT if user is None else str(user),
            workdir=cwd,
            env=env,
            output_limit=output_limit,
            host_timeout=None if timeout is None else timeout + grace,
        )
        with translate_errors(self._where):
            raw = await anyio.to_thread.run_sync(
                call, abandon_on_cancel=True, limiter=self._backend.exec_limiter
            )
        return self._interpret(raw, argv, timeout)

    def _channel_manager(self) -> ChannelManager:
        if self._channels is None:
            settings = self._backend.settings
            self._channels = ChannelManager(
                self._backend.client.api,
                self._id,
                self._where,
                settings.channel,
                enabled=settings.exec_channel and self.spec.role == "agent",
            )
        return self._channels

    async def _channel_run(
        self,
        argv: list[str],
        *,
        stdin: bytes | None,
        user: str | int | None,
        cwd: str | None,
        env: Mapping[str, str] | None,
        timeout: float | None,
        limit: int,
    ) -> ExecResult | None:
        """Run through the exec channel (see :mod:`lhtb.sandbox.docker._channel`).

        None: use plain exec.
        """
        channels = self._channel_manager()
        if not channels.active:
            return None
        grace = self._backend.settings.exec_timeout_grace_sec
        with translate_errors(self._where):
            return await channels.run(
                argv,
                stdin=stdin,
                user=ROOT if user is None else str(user),
                cwd=cwd,
                env=env,
                timeout=timeout,
                output_limit=limit,
                host_timeout=None if timeout is None else timeout + grace,
            )

    async def _kill_in_sandbox(self, pid: int) -> None:
        await self.exec(["kill", "-KILL", str(pid)], timeout=10)

    def _interpret(self, raw: RawExec, argv: list[str], timeout: float | None) -> ExecResult:
        code = raw.exit_code
        if code == 126 and not raw.stderr and raw.stdout.startswith(_START_FAILURE_MARKERS):
            message = raw.stdout.decode(errors="replace").strip()
            fix = (
                "Install coreutils (for `timeout`) in the image, or call exec without a timeout"
                if f'"{self._backend.settings.timeout_command}"' in message
                else "Check the user, working directory and executable exist in the image"
            )
            raise ExecError(f"command could not start: {message}", where=self._where, fix=fix)
        if (
            timeout is not None
            and code == 127
            and raw.stderr.startswith(b"timeout: failed to run command")
        ):
            message = raw.stderr.decode(errors="replace").strip()
            raise ExecError(f"command could not start: {message}", where=self._where)
        timed_out = raw.host_timed_out or (
            timeout is not None and code == _KILLED and raw.duration_sec >= timeout * 0.98
        )
        if raw.host_timed_out:
            log.warning("exec_host_deadline", where=self._where, argv=argv[:6])
        return ExecResult(
            exit_code=-1 if code is None else code,
            stdout=raw.stdout,
            stderr=raw.stderr,
            stdout_truncated=raw.stdout_truncated,
            stderr_truncated=raw.stderr_truncated,
            timed_out=timed_out,
            duration_sec=raw.duration_sec,
        )

    async def _control(self, script: str, *args: str) -> ExecResult:
        timeout = self._backend.settings.control_timeout_sec
        return await self.exec(["sh", "-c", script, "sh", *args], timeout=timeout)

    # -- files -----------------------------------------------------------------------------

    async def read_file(self, path: str) -> bytes:
        """Read a file through the Engine's archive API (following symlinks).

        Raises:
            FileNotFoundError, IsADirectoryError, SandboxUnavailableError.
        """
        path = _absolute(path)
        channels = self._channel_manager()
        if channels.active and not self._destroyed:
            limit = channels.settings.file_channel_max_bytes
            argv = ["sh", "-c", READ_SCRIPT, "sh", path, str(limit + 1)]
            result = await self._channel_run(
                argv, stdin=None, user=None, cwd=None, env=None, timeout=300, limit=limit + 1
            )
            if result is not None:
                _raise_for_file_status(result, path)
                if len(result.stdout) <= limit:
                    return result.stdout
        return await self._call(self._read_sync, path)

    def _read_sync(self, path: str) -> bytes:
        import docker.errors  # noqa: PLC0415

        api = self._backend.client.api
        for _ in range(16):
            try:
                chunks, stat = api.get_archive(self._id, path)
            except docker.errors.NotFound as error:
                if "No such container" in str(error.explanation):
                    raise
                raise FileNotFoundError(2, "No such file in sandbox", path) from error
            mode = int(stat.get("mode", 0))
            if mode & _GO_MODE_SYMLINK and stat.get("linkTarget"):
                target = str(stat["linkTarget"])
                path = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                _drain(chunks)
                continue
            if mode & _GO_MODE_DIR:
                _drain(chunks)
                raise IsADirectoryError(21, "Is a directory", path)
            with tarfile.open(fileobj=_ChunkStream(chunks), mode="r|") as tar:
                for info in tar:
                    handle = tar.extractfile(info)
                    if handle is not None:
                        return handle.read()
            return b""
        raise SandboxError("too many levels of symbolic links", where=f"{self._where}: {path}")

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Create or replace a file (root-owned), creating parent directories."""
        payload = data.encode() if isinstance(data, str) else data
        path = _absolute(path)
        channels = self._channel_manager()
        if channels.active and len(payload) <= channels.settings.file_channel_max_bytes:
            argv = ["sh", "-c", _scripts.WRITE_FILE_SCRIPT, "sh", path, f"{mode or 0o644:o}"]
            result = await self._channel_run(
                argv, stdin=payload, user=None, cwd=None, env=None, timeout=300, limit=64 * 1024
            )
            if result is not None:
                _raise_for_file_status(result, path)
                return
        archive = _single_file_tar(path.lstrip("/"), payload, mode or 0o644)
        await self._call(self._backend.client.api.put_archive, self._id, "/", archive)

    # -- control ---------------------------------------------------------------------------

    async def freeze(self) -> None:
        """Stop every process of the container, so that nothing runs until :meth:`thaw`.

        When the daemon is local the host does it (nothing in the container is
        trusted: an agent may have replaced ``/bin/sh``): through the container's
        freezer cgroup, init included, confirmed by the kernel
        (:class:`~lhtb.sandbox.host._freeze.CgroupFreezer`), else by a SIGSTOP
        sweep over the container's cgroup. A remote daemon gets the in-container
        sweep (``_scripts.FREEZE_SCRIPT``), which cannot stop the init (see
        docs/isolation.md).

        Raises:
            SandboxError: the freeze could not be completed or confirmed.
        """
        try:
            await self._freeze()
        except SandboxUnavailableError:
            raise
        except SandboxError:
            # A container whose init the agent killed is unavailable, not a failed freeze;
            # the daemon may need a moment to see that it has stopped.
            await anyio.sleep(_DYING_GRACE_SEC)
            await self._running_init()
            raise

    async def freeze_for_capture(self) -> None:
        """Freeze from the host, keeping the exec channel: its helper is frozen with the
        agent's commands in flight, which finish after the thaw. Without a host freezer
        (a remote daemon, a compose task) this is :meth:`freeze`, which stops the helper.
        """
        if not await self._host_sweep(freeze=True):
            await self.freeze()

    async def _freeze(self) -> None:
        await self._channel_manager().suspend(self._kill_in_sandbox)  # plain exec from here
        if await self._host_sweep(freeze=True):
            return
        result = await self._control(_scripts.FREEZE_SCRIPT)
        if not result.ok:
            raise SandboxError(
                f"freeze failed: {result.stderr_text.strip() or result.exit_code}",
                where=self._where,
                fix="Retry; if it persists, destroy the sandbox",
            )
        log.debug("sandbox_frozen", where=self._where, rounds=result.stdout_text.strip())

    async def thaw(self) -> None:
        """SIGCONT every process but the init."""
        self._channel_manager().resume()
        if await self._host_sweep(freeze=False):
            return
        result = await self._control(_scripts.THAW_SCRIPT)
        if not result.ok:
            raise SandboxError(f"thaw failed: {result.stderr_text.strip()}", where=self._where)

    async def _running_init(self) -> int:
        """The host pid of the container's init; raises when the container is not running."""
        info = await self._call(self._backend.client.api.inspect_container, self._id)
        if self._layer is None:
            self._layer = ContainerLayer.from_inspect(info)
        state = info.get("State", {})
        if not state.get("Running"):
            raise SandboxUnavailableError(
                f"container is not running (status {state.get('Status')!r})",
                where=self._where,
                fix="The sandbox stopped (crashed or was killed); start a new one",
            )
        return int(state.get("Pid") or 0)

    async def _find_host_freeze(self) -> CgroupFreezer | Path | Literal[False]:
        if self._host_freeze is None:
            init = await self._running_init()
            found: CgroupFreezer | Path | None = await anyio.to_thread.run_sync(
                CgroupFreezer.find, init, self._id
            )
            if found is None:
                found = await anyio.to_thread.run_sync(cgroup_procs_file, init, self._id)
            if found is None:
                await self._running_init()  # a container dying under us is unavailable
            self._host_freeze = False if found is None else found
            log.debug("sandbox_host_freeze", where=self._where, how=str(found))
        return self._host_freeze

    async def _host_sweep(self, *, freeze: bool) -> bool:
        """Freeze or thaw from the host; False when the host cannot see the container."""
        if not self._backend.settings.host_freeze or self.compose_project is not None:
            return False
        how = await self._find_host_freeze()
        if how is False:
            return False
        timeout = self._backend.settings.control_timeout_sec
        work: Callable[[], int | None]
        if isinstance(how, CgroupFreezer):
            work = functools.partial(how.freeze if freeze else how.thaw, timeout=timeout)
        else:
            work = functools.partial(host_sweep, how, keep=set(), freeze=freeze, timeout=timeout)
        self._host_frozen = False
        try:
            try:
                rounds = await anyio.to_thread.run_sync(work)
            except HostFreezeError as error:
                if not freeze:
                    raise
                # A failed freeze is undone; on a loaded host one thread may have been
                # slow to stop (a page fault, an exit under way): one more try.
                log.warning("sandbox_freeze_retried", where=self._where, error=str(error))
                rounds = await anyio.to_thread.run_sync(work)
        except (HostFreezeError, OSError) as error:
            raise SandboxError(
                f"{'freeze' if freeze else 'thaw'} failed: {error}",
                where=self._where,
                fix="Retry; if it persists, destroy the sandbox",
            ) from error
        self._host_frozen = freeze
        log.debug("sandbox_host_sweep", where=self._where, freeze=freeze, rounds=rounds)
        return True

    async def export(self, paths: Sequence[str], *, exclude: Sequence[str] = ()) -> bytes:
        """A tar of ``paths``, names relative to ``/``, read by the Engine (not in-sandbox tools).

        Raises:
            FileNotFoundError: a path does not exist.
            ArchiveError: the export exceeds the archive caps.
        """
        absolute = [_absolute(p) for p in paths]
        if self._host_freeze:  # the host sees the container's processes: measure first
            init = await self._running_init()
            limits = self._backend.settings.archive_limits
            relative = [p.lstrip("/") or "." for p in absolute]
            check = functools.partial(check_export_size, init, relative, limits, where=self._where)
            await anyio.to_thread.run_sync(check)
            if self.compose_project is None:  # the Engine would be most of a capture's pause
                found = await export_on_host(
                    init, absolute, exclude=tuple(exclude), limits=limits, where=self._where
                )
                if found is not None:
                    return found
        return await self._call(self._export_sync, absolute, tuple(exclude))

    def _export_sync(self, paths: list[str], exclude: tuple[str, ...]) -> bytes:
        import docker.errors  # noqa: PLC0415

        api = self._backend.client.api
        parts: list[tuple[str, Any]] = []
        responses: list[Any] = []
        try:
            for path in paths:
                url = api._url("/containers/{0}/archive", self._id)
                response = api._get(url, params={"path": path}, stream=True)
                responses.append(response)
                try:
                    api._raise_for_status(response)
                except docker.errors.NotFound as error:
                    if "No such container" in str(error.explanation):
                        raise
                    raise FileNotFoundError(
                        2, "No such file or directory in sandbox", path
                    ) from error
                chunks = response.raw.stream(_EXPORT_CHUNK, decode_content=False)
                parts.append((posixpath.dirname(path.rstrip("/")) or "/", _ChunkStream(chunks)))
            return repack(parts, exclude=exclude, limits=self._backend.settings.archive_limits)
        finally:
            # An export refused half-way (over a cap) must not leave the Engine streaming:
            # a dangling archive stream blocks removing the container.
            for response in responses:
                with contextlib.suppress(Exception):
                    response.close()

    async def import_(self, archive: bytes, *, dest: str = "/") -> None:
        """Validate ``archive`` (see :mod:`lhtb.sandbox.archive`), then extract it under ``dest``.

        Raises:
            ArchiveError: a member breaks the safe-extraction rules; nothing was written.
        """
        target = _absolute(dest)
        limits = self._backend.settings.archive_limits
        await anyio.to_thread.run_sync(
            functools.partial(validate_archive, archive, dest=target, limits=limits)
        )
        if target != "/":
            made = await self.exec(["mkdir", "-p", "--", target], timeout=60, cwd="/")
            if not made.ok:
                raise SandboxError(f"cannot create {target}: {made.stderr_text}", where=self._where)
        await self._call(self._backend.client.api.put_archive, self._id, target, archive)

    async def stage_snapshot(self) -> SnapshotMaker:
        """Frozen by the host: copy the container's changes on the host now, commit them
        after the thaw (:mod:`~lhtb.sandbox.docker._staged`); else :meth:`snapshot`.

        Raises:
            ArchiveError: the changes exceed ``DockerSettings.max_snapshot_bytes``.
        """
        layer = self._layer if self._host_freeze and self.compose_project is None else None
        if layer is None:
            return await super().stage_snapshot()
        take = functools.partial(
            StagedChanges.take,
            layer,
            run_id=self.spec.run_id,
            limit=self._backend.settings.max_snapshot_bytes,
            where=self._where,
        )
        staged = await anyio.to_thread.run_sync(take)
        repository, tag, labels = self._snapshot_names()

        async def commit() -> SandboxSpec:
            await staged.commit(self._backend, repository=repository, tag=tag, labels=labels)
            return self._snapshot_spec(repository, tag)

        return commit

    def _snapshot_names(self) -> tuple[str, str, dict[str, str]]:
        """A new snapshot image's repository, tag and labels."""
        spec = self.spec
        repository = f"{SNAPSHOT_REPO}/{sanitise_name(spec.task.name)}"
        tag = f"{sanitise_name(spec.run_id)[:60]}-{uuid.uuid4().hex[:8]}"
        labels = {
            LABEL_RUN: spec.run_id,
            LABEL_ROLE: spec.role,
            LABEL_TASK: spec.task.name,
            LABEL_KIND: "snapshot",
        }
        return repository, tag, labels

    def _snapshot_spec(self, repository: str, tag: str) -> SandboxSpec:
        spec = self.spec
        return SandboxSpec(
            image=f"{repository}:{tag}",
            task=spec.task,
            run_id=spec.run_id,
            role="snapshot",
            network=spec.network,
        )

    async def snapshot(self) -> SandboxSpec:
        """Commit the container to a labelled image; :meth:`DockerBackend.release` removes it.

        Docker pauses the container for the commit unless the host already holds it
        frozen: pausing it again would wait for the kernel once more, and give up
        (``unable to freeze``) while a frozen thread finishes a system call.
        """
        repository, tag, labels = self._snapshot_names()
        limit = self._backend.settings.max_snapshot_bytes
        size = await self._call(_size_rw, self._backend.client.api, self._id)
        if size > limit:
            # Apparent size: a sparse file counts in full, as `docker commit` would store it.
            raise ArchiveError(
                f"the sandbox's filesystem changes ({size} bytes) exceed the snapshot cap "
                f"of {limit} bytes",
                where=self._where,
                fix="Keep the working files small, or raise DockerSettings.max_snapshot_bytes",
            )
        started = time.monotonic()
        await self._call(
            commit_container,
            self._backend.client.api,
            self._id,
            repository=repository,
            tag=tag,
            labels=labels,
            pause=not self._host_frozen,
            timeout=self._backend.settings.snapshot_timeout_sec,
        )
        log.info("sandbox_snapshot", where=self._where, seconds=time.monotonic() - started)
        return self._snapshot_spec(repository, tag)

    async def destroy(self) -> None:
        """Remove the container (and its compose project), thawed first. Safe to call twice."""
        if self._destroyed:
            return
        self._destroyed = True
        if self._channels is not None:
            self._channels.shutdown()
        with anyio.CancelScope(shield=True):
            if isinstance(self._host_freeze, CgroupFreezer):
                # Through this sandbox's own freezer: it waits for a freeze still under way.
                thaw = functools.partial(
                    self._host_freeze.thaw, timeout=self._backend.settings.control_timeout_sec
                )
                with contextlib.suppress(HostFreezeError, OSError):  # gone: nothing to thaw
                    await anyio.to_thread.run_sync(thaw)
            await self._backend.remove_container(self._id, project=self.compose_project)


class DockerAgentSandbox:
    """What an agent sees: exec and files as the task's user, nothing else."""

    def __init__(self, managed: DockerSandbox, user: str | int | None) -> None:
        self._managed = managed
        self._user = None if user is None else str(user)

    async def exec(
        self,
        command: Command,
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str | int | None = None,
        stdin: bytes | str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
    ) -> ExecResult:
        """Run a command as ``[agent].user`` (``user`` may only name it, see
        :func:`~lhtb.sandbox.base.agent_exec_user`)."""
        return await self._managed.exec(
            command,
            timeout=timeout,
            cwd=cwd,
            env=env,
            user=agent_exec_user(self._user, user),
            stdin=stdin,
            output_limit=output_limit,
        )

    async def read_file(self, path: str) -> bytes:
        """Read a file with the agent user's permissions."""
        if self._user is None:
            return await self._managed.read_file(path)
        path = _absolute(path)
        result = await self.exec(["sh", "-c", _scripts.READ_FILE_SCRIPT, "sh", path], timeout=300)
        _raise_for_file_status(result, path)
        return result.stdout

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Write a file as the agent user (owned by it, its permissions apply)."""
        if self._user is None:
            await self._managed.write_file(path, data, mode=mode)
            return
        path = _absolute(path)
        octal = "" if mode is None else f"{mode:o}"
        argv = ["sh", "-c", _scripts.WRITE_FILE_SCRIPT, "sh", path, octal]
        result = await self.exec(argv, stdin=data, timeout=300)
        _raise_for_file_status(result, path)

    async def terminal(
        self,
        command: Command | None = None,
        *,
        rows: int = 24,
        cols: int = 80,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> Terminal:
        """An interactive terminal as the agent user (see :class:`~lhtb.sandbox.base.Terminal`).

        Raises:
            SandboxUnavailableError: the container is gone or stopped.
            ExecError: an empty command or a size that is not positive.
        """
        managed = self._managed
        if managed._destroyed:
            raise SandboxUnavailableError("sandbox was destroyed", where=managed._where)
        return await start_terminal(
            api=managed._backend.client.api,
            container_id=managed.id,
            where=managed._where,
            root_exec=managed.exec,
            translate=translate_errors,
            command=command,
            user=self._user,
            rows=rows,
            cols=cols,
            env=env,
            cwd=cwd,
        )


def _raise_for_file_status(result: ExecResult, path: str) -> None:
    if result.ok:
        return
    detail = result.stderr_text.strip()
    if result.exit_code == 4:
        raise IsADirectoryError(21, "Is a directory", path)
    if "Permission denied" in detail or "Operation not permitted" in detail:
        raise PermissionError(13, "Permission denied", path)
    if "No such file" in detail or "Not a directory" in detail:
        raise FileNotFoundError(2, "No such file in sandbox", path)
    raise SandboxError(f"file operation failed ({result.exit_code}): {detail}", where=path)


def _absolute(path: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"sandbox paths must be absolute, got {path!r}")
    return posixpath.normpath(path)


def _single_file_tar(name: str, data: bytes, mode: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mode = mode
        info.mtime = int(time.time())
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _size_rw(api: Any, container_id: str) -> int:
    """Bytes the container changed (apparent sizes: a sparse file counts in full)."""
    url = api._url("/containers/{0}/json", container_id)
    info = api._result(api._get(url, params={"size": 1}), True)
    return int(info.get("SizeRw") or 0)


def _drain(chunks: Any) -> None:
    for _ in chunks:
        pass


class _ChunkStream(io.RawIOBase):
    """A readable file over the SDK's chunk iterator, for streaming tar reads."""

    def __init__(self, chunks: Any) -> None:
        self._chunks = iter(chunks)
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            try:
                self._pending = next(self._chunks)
            except StopIteration:
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size
