"""Sandbox interfaces: what an agent sees, and what a backend must provide.

Two sides, kept apart on purpose:

* :class:`Sandbox` is the agent's view: run commands, read and write files.
  Nothing on it can freeze, snapshot, or reach the tests.
* :class:`ManagedSandbox` is the harness's handle on the same environment. It
  adds the control operations the verifier needs (freeze/thaw, export/import
  of paths, snapshot, destroy). Agents are only ever given a :class:`Sandbox`.

A :class:`SandboxBackend` provisions managed sandboxes for tasks. Docker and
local backends ship with lhtb; others register through the ``lhtb.backends``
entry point group.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

import attrs

from lhtb.errors import ExecError, SandboxError
from lhtb.task._model import Task

__all__ = [
    "DEFAULT_OUTPUT_LIMIT",
    "ExecResult",
    "ManagedSandbox",
    "Sandbox",
    "SandboxBackend",
    "SandboxSpec",
    "SnapshotMaker",
    "Terminal",
    "agent_exec_user",
]

DEFAULT_OUTPUT_LIMIT = 10 * 1024 * 1024
_REMOVE_BATCH = 500
"""Paths per ``rm`` command line in :meth:`ManagedSandbox.remove`."""
_REMOVE_TIMEOUT_SEC = 120.0
"""Bytes kept per output stream of one command before it is truncated."""


def agent_exec_user(task_user: str | None, requested: str | int | None) -> str | int | None:
    """The user an agent's command runs as: ``[agent].user`` is a boundary, not a default.

    Raises:
        ExecError: the task sets ``[agent].user`` and ``requested`` names another user.
    """
    if task_user is None or requested is None or str(requested) == task_user:
        return task_user if requested is None else requested
    raise ExecError(
        f"the agent runs as [agent].user {task_user!r}; exec as user {str(requested)!r} is refused",
        where="agent sandbox",
        fix="Drop user= (or pass the task's user); a task whose agent needs root must "
        "not set [agent].user",
    )


@attrs.frozen
class ExecResult:
    """What one command did. Output is raw bytes; ``*_text`` decode it leniently."""

    exit_code: int
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    duration_sec: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the command exited 0 and did not time out."""
        return self.exit_code == 0 and not self.timed_out

    @property
    def stdout_text(self) -> str:
        """``stdout`` decoded as UTF-8, invalid bytes replaced."""
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def stderr_text(self) -> str:
        """``stderr`` decoded as UTF-8, invalid bytes replaced."""
        return self.stderr.decode("utf-8", errors="replace")


Command = str | Sequence[str]
"""A shell string (run by ``sh -c``) or an argv list (run directly)."""


class Terminal(abc.ABC):
    """An interactive session on a pseudo-terminal in a sandbox (for games, REPLs, TUIs).

    Get one from :meth:`Sandbox.terminal`; use it as an async context manager or
    call :meth:`close`. Output is kept twice: :attr:`raw` holds every byte the
    program wrote, :meth:`read` and :meth:`screen` give a plain-text view with
    terminal control sequences removed. Backends implement the abstract methods.

    Raises (every method):
        SandboxUnavailableError: the sandbox or the session is gone.
    """

    @abc.abstractmethod
    async def send(self, keys: str | bytes) -> None:
        """Type ``keys`` verbatim (``"\\n"`` is Enter, ``"\\x03"`` is Ctrl-C)."""

    @abc.abstractmethod
    async def read(self, timeout: float = 1.0) -> str:
        """Output since the last ``read``, as plain text.

        Returns once output has arrived and then stayed quiet for a moment, or
        when ``timeout`` seconds have passed (possibly with ``""``).
        """

    @abc.abstractmethod
    def screen(self) -> str:
        """A plain-text snapshot of the visible screen (the last ``rows`` lines)."""

    @property
    @abc.abstractmethod
    def raw(self) -> bytes:
        """Every byte the session has written so far (capped, oldest dropped first)."""

    @property
    @abc.abstractmethod
    def closed(self) -> bool:
        """True once the session ended (closed, or its program exited)."""

    @abc.abstractmethod
    async def resize(self, rows: int, cols: int) -> None:
        """Change the terminal size the program sees."""

    @abc.abstractmethod
    async def close(self) -> None:
        """End the session and every process it started. Safe to call twice."""

    async def __aenter__(self) -> Terminal:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


@runtime_checkable
class Sandbox(Protocol):
    """The environment an agent works in.

    Raises (every method):
        SandboxUnavailableError: the sandbox is gone.
        ExecError: the command could not be started at all.
    """

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
        """Run a command. A timeout kills its whole process group and sets ``timed_out``.

        On an agent's view of a task with ``[agent].user``, commands run as that
        user and ``user`` may only name it (anything else raises ``ExecError``).
        """
        ...

    async def read_file(self, path: str) -> bytes:
        """Return the bytes of a file (raises ``FileNotFoundError`` when it is missing)."""
        ...

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Create or replace a file, creating parent directories."""
        ...

    async def terminal(
        self,
        command: Command | None = None,
        *,
        rows: int = 24,
        cols: int = 80,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> Terminal:
        """Start an interactive :class:`Terminal` running ``command`` (default: a login shell)."""
        ...


class ManagedSandbox(abc.ABC):
    """A running sandbox as the harness controls it. Agents never receive this object."""

    @property
    @abc.abstractmethod
    def id(self) -> str:
        """A backend-unique identifier (e.g. the container id)."""

    @abc.abstractmethod
    def agent_view(self) -> Sandbox:
        """The restricted :class:`Sandbox` handed to agents."""

    @abc.abstractmethod
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
        """Run a command (same contract as :meth:`Sandbox.exec`)."""

    @abc.abstractmethod
    async def read_file(self, path: str) -> bytes:
        """Return the bytes of a file."""

    @abc.abstractmethod
    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Create or replace a file."""

    @abc.abstractmethod
    async def freeze(self) -> None:
        """Stop every process in the sandbox so nothing runs or writes until :meth:`thaw`."""

    @abc.abstractmethod
    async def thaw(self) -> None:
        """Resume the processes stopped by :meth:`freeze`."""

    async def freeze_for_capture(self) -> None:
        """Freeze for a moment's capture (:meth:`export` or :meth:`snapshot`) mid-turn.

        As :meth:`freeze`, but the agent must not notice: its commands in flight
        are stopped with everything else and finish after :meth:`thaw`, never
        fail because of the freeze. Only ``export`` and ``snapshot`` are called
        before the thaw. The default is :meth:`freeze`.
        """
        await self.freeze()

    @abc.abstractmethod
    async def export(self, paths: Sequence[str], *, exclude: Sequence[str] = ()) -> bytes:
        """Return a tar archive of ``paths`` (absolute, as stored in the sandbox)."""

    async def remove(self, paths: Sequence[str]) -> None:
        """Remove ``paths`` (absolute; a directory with everything under it) as root.

        A path that does not exist is no error. The default runs ``rm -rf``.

        Raises:
            SandboxError: the removal failed.
        """
        for start in range(0, len(paths), _REMOVE_BATCH):
            batch = list(paths[start : start + _REMOVE_BATCH])
            done = await self.exec(
                ["rm", "-rf", "--", *batch], timeout=_REMOVE_TIMEOUT_SEC, user="root", cwd="/"
            )
            if not done.ok:
                raise SandboxError(
                    f"could not remove {len(batch)} path(s), e.g. {batch[0]}: "
                    f"{done.stderr_text.strip()[-300:]}",
                    where=self.id,
                )

    @abc.abstractmethod
    async def import_(self, archive: bytes, *, dest: str = "/") -> None:
        """Extract a tar archive under ``dest`` following the safe-extraction rules.

        Raises:
            ArchiveError: the archive holds absolute paths, ``..`` entries, links
                escaping ``dest``, device files, or exceeds the size cap.
        """

    @abc.abstractmethod
    async def snapshot(self) -> SandboxSpec:
        """Capture the whole filesystem; the result starts an identical sandbox."""

    async def stage_snapshot(self) -> SnapshotMaker:
        """Take the whole filesystem as :meth:`snapshot` would, in a capture's pause
        (after :meth:`freeze_for_capture`); what is returned makes the snapshot later,
        once the sandbox is thawed. A backend does now only what must happen frozen;
        the default snapshots now.

        Raises:
            ArchiveError: the filesystem changes exceed the backend's snapshot cap.
        """
        spec = await self.snapshot()

        async def made() -> SandboxSpec:
            return spec

        return made

    @abc.abstractmethod
    async def destroy(self) -> None:
        """Remove the sandbox and everything it owns. Safe to call twice."""


@attrs.frozen
class SandboxSpec:
    """What to start: a backend-specific image reference plus the task's settings.

    ``network`` overrides the task's ``[environment].allow_internet`` when set;
    ``None`` follows the task. ``network_of`` names a running sandbox whose
    network this one joins (its ``localhost`` is that sandbox's): a live
    ``separate`` verifier reaching the agent's services. Backends that cannot
    do that raise :class:`~lhtb.errors.SandboxError` from ``start``.
    """

    image: str
    task: Task
    run_id: str
    role: str = "agent"
    network: bool | None = None
    network_of: str | None = None

    @property
    def network_enabled(self) -> bool:
        """Whether the sandbox gets a network: the override, else the task's setting."""
        return self.task.environment.allow_internet if self.network is None else self.network


SnapshotMaker = Callable[[], Awaitable["SandboxSpec"]]
"""Makes a snapshot staged by :meth:`ManagedSandbox.stage_snapshot` (call it once):
its spec is released with :meth:`SandboxBackend.release`. Raises
:class:`~lhtb.errors.SandboxError` when the backend fails."""


class SandboxBackend(abc.ABC):
    """A provider of sandboxes. Subclasses are registered under ``name``."""

    name: str = ""

    @abc.abstractmethod
    async def prepare(self, task: Task) -> str:
        """Build or fetch the task's image and return its reference (cached by content)."""

    @abc.abstractmethod
    async def start(self, spec: SandboxSpec) -> ManagedSandbox:
        """Start a sandbox from ``spec`` and wait until it is healthy."""

    async def release(self, spec: SandboxSpec) -> None:  # noqa: B027 - optional hook
        """Free what ``spec`` holds when it came from :meth:`ManagedSandbox.snapshot`.

        A no-op for specs from :meth:`prepare` (cached task images stay). Safe to
        call twice.
        """

    @abc.abstractmethod
    async def cleanup(self, run_id: str | None = None) -> int:
        """Remove what this backend left behind for ``run_id`` (all runs if None).

        Returns the number of resources removed.
        """
