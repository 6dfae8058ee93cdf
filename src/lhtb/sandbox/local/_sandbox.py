"""A running local sandbox: exec, files, freeze/thaw, export/import, snapshot, destroy.

Every operation goes through the sandbox's init (see :mod:`lhtb.sandbox.local._sandbox_init`):
commands are forked by it, so they share its namespaces and root. File reads,
writes and imports are commands too (``cat``, ``tar``) so that paths resolve
inside the sandbox, never through host symlinks; exports are read by the host
through the init's root without following links (``tar`` inside is the
fallback). Commands started while the sandbox is frozen go to a separate,
unfrozen cgroup: ``shared`` verification runs the tests inside the frozen sandbox.
"""

from __future__ import annotations

import functools
import io
import os
import posixpath
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

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
    Terminal,
    agent_exec_user,
)
from lhtb.sandbox.host._export import Owners, export_on_host
from lhtb.sandbox.host._tree_usage import check_export_size
from lhtb.sandbox.local._cgroups import Freezer
from lhtb.sandbox.local._exec import InitError, RawExec, request, run_exec
from lhtb.sandbox.local._process import stop_sandbox_sync

if TYPE_CHECKING:
    from pathlib import Path

    from lhtb.sandbox.local._backend import LocalBackend

__all__ = ["LocalAgentSandbox", "LocalSandbox"]

log = get_logger(__name__)

_FILE_TIMEOUT = 300.0
_TAR_SLACK = 64 * 1024 * 1024
_EXPORT_SCRIPT = """
for p; do
  [ -e "/$p" ] || [ -L "/$p" ] || { printf 'missing /%s\\n' "$p" >&2; exit 3; }
done
exec tar -C / --numeric-owner -cf - -- "$@"
"""


def _argv(command: Command) -> list[str]:
    if isinstance(command, str):
        if not command.strip():
            raise ExecError("empty command", where="exec", fix="Pass a shell string or argv list")
        return ["sh", "-c", command]
    argv = [str(arg) for arg in command]
    if not argv:
        raise ExecError("empty command", where="exec", fix="Pass a shell string or argv list")
    return argv


def _absolute(path: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"sandbox paths must be absolute, got {path!r}")
    return posixpath.normpath(path)


class LocalSandbox(ManagedSandbox):
    """The harness's handle on one local sandbox. Harness commands run as root by default."""

    def __init__(
        self,
        backend: LocalBackend,
        sandbox_id: str,
        spec: SandboxSpec,
        *,
        directory: Path,
        freezer: Freezer,
        env: Mapping[str, str],
        workdir: str,
        init_pid: int,
        monitor: Any,
    ) -> None:
        self._backend = backend
        self._id = sandbox_id
        self.spec = spec
        self.directory = directory
        self.freezer = freezer
        self.env = dict(env)
        self.workdir = workdir
        self.init_pid = init_pid
        self.monitor = monitor
        self.frozen = False
        self._destroyed = False
        self._view: LocalAgentSandbox | None = None

    @property
    def id(self) -> str:
        return self._id

    @property
    def socket_path(self) -> str:
        """The init's control socket on the host (masked inside every sandbox)."""
        return str(self.directory / "control.sock")

    @property
    def upper(self) -> Path:
        """The sandbox's writable layer on the host."""
        return self.directory / "upper"

    @property
    def _where(self) -> str:
        return f"local sandbox {self._id} ({self.spec.task.name}, {self.spec.role})"

    def agent_view(self) -> Sandbox:
        if self._view is None:
            self._view = LocalAgentSandbox(self, self.spec.task.agent.user)
        return self._view

    def _alive(self) -> None:
        if self._destroyed:
            raise SandboxUnavailableError(
                "sandbox was destroyed", where=self._where, fix="Start a new sandbox"
            )

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
            SandboxUnavailableError: the sandbox was destroyed or its init died.
            ExecError: the command could not start (unknown user, missing working
                directory or executable), or bad arguments.
        """
        argv = _argv(command)
        if timeout is not None and timeout <= 0:
            raise ExecError(f"timeout must be positive, got {timeout}", where=self._where)
        if output_limit < 0:
            raise ExecError(f"output_limit must be >= 0, got {output_limit}", where=self._where)
        self._alive()
        data = stdin.encode() if isinstance(stdin, str) else stdin
        message = {
            "op": "exec",
            "argv": argv,
            "env": {**self.env, **(env or {})},
            "cwd": cwd or self.workdir,
            "user": None if user is None else str(user),
            "timeout": timeout,
            "cgroup": "ctl" if self.frozen else "agent",
        }
        grace = self._backend.settings.exec_timeout_grace_sec
        cancelled = threading.Event()
        call = functools.partial(
            run_exec,
            self.socket_path,
            message,
            stdin=data,
            output_limit=output_limit,
            host_timeout=None if timeout is None else timeout + grace,
            cancelled=cancelled,
        )
        try:
            raw: RawExec = await anyio.to_thread.run_sync(
                call, abandon_on_cancel=True, limiter=self._backend.exec_limiter
            )
        except InitError as error:
            if error.start_failure:
                raise ExecError(
                    f"command could not start: {error}",
                    where=self._where,
                    fix="Check the user, working directory and executable exist in the sandbox",
                ) from error
            raise SandboxUnavailableError(
                str(error), where=self._where, fix="The sandbox's init is gone; start a new one"
            ) from error
        finally:
            cancelled.set()
        return ExecResult(
            exit_code=raw.exit_code,
            stdout=raw.stdout,
            stderr=raw.stderr,
            stdout_truncated=raw.stdout_truncated,
            stderr_truncated=raw.stderr_truncated,
            timed_out=raw.timed_out,
            duration_sec=raw.duration_sec,
        )

    async def ping(self, timeout: float = 5.0) -> None:
        """Check that the init answers."""
        await self._control({"op": "ping"}, timeout)

    async def _control(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        self._alive()
        try:
            return await anyio.to_thread.run_sync(
                functools.partial(request, self.socket_path, message, timeout=timeout)
            )
        except (InitError, OSError) as error:
            raise SandboxUnavailableError(str(error), where=self._where) from error

    # -- files -----------------------------------------------------------------------------

    async def read_file(self, path: str) -> bytes:
        """Read a file inside the sandbox (as root).

        Raises:
            FileNotFoundError, IsADirectoryError, PermissionError, SandboxUnavailableError.
        """
        return await read_file_as(self, path, None)

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Create or replace a file (root-owned), creating parent directories."""
        await write_file_as(self, path, data, mode, None)

    # -- control ---------------------------------------------------------------------------

    async def freeze(self) -> None:
        """Stop every process: the freezer cgroup, else a SIGSTOP sweep to a fixpoint.

        A command the init was starting is frozen with the rest and starts at the thaw;
        the init itself is never frozen and serves the verifier's commands meanwhile.

        Raises:
            SandboxError: the freezer did not settle, or the sweep found no fixpoint.
        """
        self._alive()
        timeout = self._backend.settings.control_timeout_sec
        if self.freezer.version:
            await anyio.to_thread.run_sync(
                functools.partial(self.freezer.set_frozen, True, timeout=timeout)
            )
        else:
            reply = await self._control({"op": "freeze"}, timeout)
            if not reply.get("ok"):
                raise SandboxError(
                    "freeze sweep found no fixpoint",
                    where=self._where,
                    fix="Retry; if it persists, destroy the sandbox",
                )
        self.frozen = True
        log.debug("sandbox_frozen", where=self._where, freezer=self.freezer.version)

    async def thaw(self) -> None:
        """Resume the processes stopped by :meth:`freeze`."""
        self._alive()
        timeout = self._backend.settings.control_timeout_sec
        if self.freezer.version:
            await anyio.to_thread.run_sync(
                functools.partial(self.freezer.set_frozen, False, timeout=timeout)
            )
        else:
            await self._control({"op": "thaw"}, timeout)
        self.frozen = False

    async def export(self, paths: Sequence[str], *, exclude: Sequence[str] = ()) -> bytes:
        """A tar of ``paths`` (names relative to ``/``), read by the host through the
        init's root (:mod:`~lhtb.sandbox.host._export`; a capture's pause has no time
        for a command), else made by ``tar`` inside the sandbox.

        Raises:
            FileNotFoundError: a path does not exist.
            ArchiveError: the export exceeds the archive caps.
        """
        absolute = [_absolute(p) for p in paths]
        relative = [p.lstrip("/") or "." for p in absolute]
        limits = self._backend.settings.archive_limits
        await anyio.to_thread.run_sync(
            functools.partial(check_export_size, self.init_pid, relative, limits, where=self._where)
        )
        root = (os.getuid(), os.getgid()) if self._backend.rootless else None
        found = await export_on_host(
            self.init_pid,
            absolute,
            exclude=tuple(exclude),
            limits=limits,
            where=self._where,
            owners=Owners(root),
        )
        if found is not None:
            return found
        result = await self.exec(
            ["sh", "-c", _EXPORT_SCRIPT, "sh", *relative],
            timeout=self._backend.settings.control_timeout_sec * 10,
            cwd="/",
            output_limit=limits.max_total_bytes + _TAR_SLACK,
        )
        if result.exit_code == 3:
            missing = result.stderr_text.strip().removeprefix("missing ")
            raise FileNotFoundError(2, "No such file or directory in sandbox", missing)
        if result.stdout_truncated:
            raise ArchiveError(
                f"export exceeds {limits.max_total_bytes} bytes",
                where=self._where,
                fix="Export less data, or raise ArchiveLimits.max_total_bytes",
            )
        if result.exit_code not in {0, 1} or result.timed_out:
            raise SandboxError(f"export failed: {result.stderr_text.strip()}", where=self._where)
        parts = [("/", io.BytesIO(result.stdout))]
        return await anyio.to_thread.run_sync(
            functools.partial(repack, parts, exclude=exclude, limits=limits)
        )

    async def import_(self, archive: bytes, *, dest: str = "/") -> None:
        """Validate ``archive`` on the host, then extract it under ``dest`` with ``tar``.

        Raises:
            ArchiveError: a member breaks the safe-extraction rules; nothing was written.
        """
        target = _absolute(dest)
        limits = self._backend.settings.archive_limits
        await anyio.to_thread.run_sync(
            functools.partial(validate_archive, archive, dest=target, limits=limits)
        )
        script = 'mkdir -p -- "$1" && exec tar -x -p --numeric-owner -C "$1" -f -'
        result = await self.exec(
            ["sh", "-c", script, "sh", target],
            stdin=archive,
            cwd="/",
            timeout=self._backend.settings.control_timeout_sec * 10,
        )
        if not result.ok:
            raise SandboxError(
                f"extracting into {target} failed: {result.stderr_text.strip()}",
                where=self._where,
            )

    async def snapshot(self) -> SandboxSpec:
        """Copy the upper layer into a new image; :meth:`LocalBackend.release` removes it."""
        self._alive()
        was_frozen = self.frozen
        if not was_frozen:
            await self.freeze()
        try:
            return await self._backend.store_snapshot(self)
        finally:
            if not was_frozen:
                await self.thaw()

    async def stop_processes(self) -> None:
        """Kill every process but keep the sandbox's files (used to finish a build)."""
        self._destroyed = True
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(stop_sandbox_sync, self.directory)
        self._destroyed = False

    async def destroy(self) -> None:
        """Kill every process, remove the cgroups and the sandbox's files. Safe to call twice."""
        if self._destroyed:
            return
        self._destroyed = True
        with anyio.CancelScope(shield=True):
            await self._backend.remove_sandbox(self.directory)


class LocalAgentSandbox:
    """What an agent sees: exec and files as the task's user, nothing else."""

    def __init__(self, managed: LocalSandbox, user: str | int | None) -> None:
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
        return await read_file_as(self._managed, path, self._user)

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Write a file as the agent user (owned by it, its permissions apply)."""
        await write_file_as(self._managed, path, data, mode, self._user)

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
            SandboxUnavailableError: the sandbox is gone.
            ExecError: an empty command, a size that is not positive, or a failed start.
        """
        from lhtb.sandbox.local._terminal import start_local_terminal  # noqa: PLC0415

        self._managed._alive()
        return await start_local_terminal(
            self._managed, command, user=self._user, rows=rows, cols=cols, env=env, cwd=cwd
        )


async def read_file_as(sandbox: LocalSandbox, path: str, user: str | None) -> bytes:
    path = _absolute(path)
    result = await sandbox.exec(
        ["sh", "-c", _scripts.READ_FILE_SCRIPT, "sh", path],
        timeout=_FILE_TIMEOUT,
        user=user,
        output_limit=sandbox._backend.settings.archive_limits.max_total_bytes,
    )
    _raise_for_file_status(result, path)
    return result.stdout


async def write_file_as(
    sandbox: LocalSandbox, path: str, data: bytes | str, mode: int | None, user: str | None
) -> None:
    path = _absolute(path)
    octal = "" if mode is None else f"{mode:o}"
    result = await sandbox.exec(
        ["sh", "-c", _scripts.WRITE_FILE_SCRIPT, "sh", path, octal],
        stdin=data.encode() if isinstance(data, str) else data,
        timeout=_FILE_TIMEOUT,
        user=user,
    )
    _raise_for_file_status(result, path)


def _raise_for_file_status(result: ExecResult, path: str) -> None:
    if result.ok:
        return
    detail = result.stderr_text.strip()
    if result.exit_code == 4 or "Is a directory" in detail:
        raise IsADirectoryError(21, "Is a directory", path)
    if "Permission denied" in detail or "Operation not permitted" in detail:
        raise PermissionError(13, "Permission denied", path)
    if "No such file" in detail or "Not a directory" in detail:
        raise FileNotFoundError(2, "No such file in sandbox", path)
    raise SandboxError(f"file operation failed ({result.exit_code}): {detail}", where=path)
