"""An interactive terminal in a Docker sandbox: ``docker exec`` with a TTY over a socket.

The Engine gives a hijacked stream for a ``Tty: true`` exec (no multiplexing
headers). A daemon thread reads it into a :class:`PlainScreen`; writes go to
the socket directly. Every process of a session carries a marker variable in
its environment, so :meth:`DockerTerminal.close` can end the whole session
(shell, its children, and anything they left in the background) from a root
exec: closing the stream alone does not stop a TTY exec in Docker. The docker
SDK is untyped; ``Any`` stays in here.
"""

from __future__ import annotations

import contextlib
import functools
import socket
import threading
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.to_thread

from lhtb.errors import ExecError, SandboxUnavailableError
from lhtb.sandbox._screen import PlainScreen
from lhtb.sandbox.base import Command, ExecResult, Terminal

__all__ = ["DockerTerminal", "TerminalSettings", "start_terminal"]

MARKER_VARIABLE = "LHTB_TERMINAL_ID"
DEFAULT_SHELL = "if command -v bash >/dev/null 2>&1; then exec bash -i; else exec sh -i; fi"
_KILL_SCRIPT = (
    "for d in /proc/[0-9]*; do "
    'if tr "\\000" "\\n" < "$d/environ" 2>/dev/null | grep -qx "$1=$2"; then '
    'kill -KILL "${d#/proc/}" 2>/dev/null; fi; done; exit 0'
)
_READ_CHUNK = 64 * 1024

RootExec = Callable[..., Awaitable[ExecResult]]


class TerminalSettings:
    """Timings of a terminal session (seconds)."""

    settle_sec: float = 0.15
    """``read`` returns once output has been quiet this long."""
    poll_sec: float = 0.02
    """How often ``read`` looks for new output."""
    start_timeout_sec: float = 30.0
    """Bound on creating and attaching the exec."""
    close_timeout_sec: float = 30.0
    """Bound on ending the session's processes."""


def _argv(command: Command | None) -> list[str]:
    if command is None:
        return ["sh", "-c", DEFAULT_SHELL]
    if isinstance(command, str):
        if not command.strip():
            raise ExecError("empty command", where="terminal", fix="Pass a command or None")
        return ["sh", "-c", command]
    argv = [str(arg) for arg in command]
    if not argv:
        raise ExecError("empty command", where="terminal", fix="Pass a command or None")
    return argv


def _attach(
    api: Any,
    container_id: str,
    argv: list[str],
    *,
    user: str,
    env: dict[str, str],
    cwd: str | None,
) -> tuple[str, Any, Any, socket.socket]:
    """Create and start the exec; return (exec id, response, buffered reader, socket)."""
    created = api.exec_create(
        container_id,
        argv,
        stdin=True,
        stdout=True,
        stderr=True,
        tty=True,
        user=user,
        workdir=cwd,
        environment=env,
    )
    exec_id: str = created["Id"]
    response = api._post_json(  # the SDK's exec_start(socket=True) does the same
        api._url("/exec/{0}/start", exec_id),
        headers={"Connection": "Upgrade", "Upgrade": "tcp"},
        data={"Tty": True, "Detach": False},
        stream=True,
    )
    api._raise_for_status(response)
    reader = response.raw._fp.fp  # may already hold output that came with the headers
    raw = reader.raw
    sock = getattr(raw, "_sock", raw)
    return exec_id, response, reader, sock


async def start_terminal(
    *,
    api: Any,
    container_id: str,
    where: str,
    root_exec: RootExec,
    translate: Callable[[str], contextlib.AbstractContextManager[None]],
    command: Command | None = None,
    user: str | None = None,
    rows: int = 24,
    cols: int = 80,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    settings: TerminalSettings | None = None,
) -> DockerTerminal:
    """Start a terminal session in ``container_id``.

    ``root_exec`` runs a command as root in the same container (used to end
    the session); ``translate`` maps docker SDK errors to lhtb's.

    Raises:
        SandboxUnavailableError: the container is gone or stopped.
        ExecError: an empty command or a bad size.
    """
    if rows <= 0 or cols <= 0:
        raise ExecError(f"terminal size must be positive, got {rows}x{cols}", where=where)
    marker = uuid.uuid4().hex
    full_env = {"TERM": "xterm", **(env or {}), MARKER_VARIABLE: marker}
    call = functools.partial(
        _attach,
        api,
        container_id,
        _argv(command),
        user=user or "0",
        env=full_env,
        cwd=cwd,
    )
    chosen = settings or TerminalSettings()
    with anyio.fail_after(chosen.start_timeout_sec), translate(where):
        exec_id, response, reader, sock = await anyio.to_thread.run_sync(call)
    terminal = DockerTerminal(
        api=api,
        exec_id=exec_id,
        response=response,
        reader=reader,
        sock=sock,
        marker=marker,
        where=where,
        root_exec=root_exec,
        translate=translate,
        screen=PlainScreen(rows, cols),
        settings=chosen,
    )
    terminal._start_reader()
    with contextlib.suppress(Exception):
        await terminal.resize(rows, cols)
    return terminal


class DockerTerminal(Terminal):
    """A TTY exec in a Docker container. Made by :func:`start_terminal`."""

    def __init__(
        self,
        *,
        api: Any,
        exec_id: str,
        response: Any,
        reader: Any,
        sock: socket.socket,
        marker: str,
        where: str,
        root_exec: RootExec,
        translate: Callable[[str], contextlib.AbstractContextManager[None]],
        screen: PlainScreen,
        settings: TerminalSettings,
    ) -> None:
        self._api = api
        self._exec_id = exec_id
        self._response = response
        self._reader = reader
        self._sock = sock
        self._marker = marker
        self._where = f"{where} terminal"
        self._root_exec = root_exec
        self._translate = translate
        self._screen = screen
        self._settings = settings
        self._eof = threading.Event()
        self._closed = False
        self._send_lock = anyio.Lock()

    def _start_reader(self) -> None:
        thread = threading.Thread(target=self._read_loop, name="lhtb-terminal", daemon=True)
        thread.start()

    def _read_loop(self) -> None:
        try:
            while True:
                chunk = self._reader.read1(_READ_CHUNK)
                if not chunk:
                    break
                self._screen.feed(chunk)
        except (OSError, ValueError):
            pass
        finally:
            self._eof.set()

    @property
    def raw(self) -> bytes:
        return self._screen.raw()

    @property
    def closed(self) -> bool:
        return self._closed or self._eof.is_set()

    def _check_open(self) -> None:
        if self.closed:
            raise SandboxUnavailableError(
                "the terminal session has ended",
                where=self._where,
                fix="Start a new one with sandbox.terminal()",
            )

    async def send(self, keys: str | bytes) -> None:
        """Write ``keys`` to the program's terminal.

        Raises:
            SandboxUnavailableError: the session has ended.
        """
        self._check_open()
        data = keys.encode() if isinstance(keys, str) else keys
        async with self._send_lock:
            try:
                await anyio.to_thread.run_sync(self._sock.sendall, data)
            except OSError as error:
                raise SandboxUnavailableError(
                    f"cannot write to the terminal ({error})", where=self._where
                ) from error

    async def read(self, timeout: float = 1.0) -> str:
        """New plain-text output: returns after output then a quiet moment, or at ``timeout``."""
        clock = anyio.current_time
        give_up = clock() + max(0.0, timeout)
        seen = self._screen.fed
        quiet_since = clock()
        while True:
            now = clock()
            if self._screen.fed != seen:
                seen, quiet_since = self._screen.fed, now
            elif self._screen.has_new() and now - quiet_since >= self._settings.settle_sec:
                break
            if now >= give_up or (self._eof.is_set() and self._screen.fed == seen):
                break
            await anyio.sleep(self._settings.poll_sec)
        return self._screen.take_new()

    def screen(self) -> str:
        return self._screen.screen()

    async def resize(self, rows: int, cols: int) -> None:
        """Tell the program the terminal is now ``rows`` x ``cols``.

        Raises:
            ExecError: a size that is not positive.
            SandboxUnavailableError: the session has ended.
        """
        if rows <= 0 or cols <= 0:
            raise ExecError(f"terminal size must be positive, got {rows}x{cols}", where=self._where)
        self._check_open()
        call = functools.partial(self._api.exec_resize, self._exec_id, height=rows, width=cols)
        with self._translate(self._where):
            await anyio.to_thread.run_sync(call)
        self._screen.resize(rows, cols)

    async def close(self) -> None:
        """End the session's processes and the stream. Safe to call twice; shielded."""
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            with (
                contextlib.suppress(Exception),
                anyio.move_on_after(self._settings.close_timeout_sec),
            ):
                await self._root_exec(
                    ["sh", "-c", _KILL_SCRIPT, "sh", MARKER_VARIABLE, self._marker],
                    timeout=self._settings.close_timeout_sec,
                )
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(Exception):
                self._response.close()
            with contextlib.suppress(OSError):
                self._sock.close()
