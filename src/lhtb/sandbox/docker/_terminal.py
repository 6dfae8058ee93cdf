"""An interactive terminal in a Docker sandbox: ``docker exec`` with a TTY over a socket.

The Engine gives a hijacked stream for a ``Tty: true`` exec (no multiplexing
headers). A daemon thread reads it into a :class:`PlainScreen`; writes go to
the socket directly. Every process of a session carries a marker variable in
A TTY exec is a session leader (``setsid``); a tiny wrapper reports its pid
as an invisible OSC sequence before it ``exec``s the program, so
:meth:`DockerTerminal.close` can end the whole session (the program, its
children, and background jobs) from a root exec, reading ``/proc/*/stat``
(which, unlike ``environ``, any user may read). Closing the stream alone does
not stop a TTY exec in Docker. A process that starts its own session
(``setsid``) escapes this; sandbox teardown still removes it. The docker SDK is
untyped; ``Any`` stays in here.
"""

from __future__ import annotations

import contextlib
import functools
import re
import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.to_thread

from lhtb.errors import ExecError, SandboxUnavailableError
from lhtb.sandbox.base import Command, ExecResult
from lhtb.sandbox.terminal._base import READ_CHUNK, ScreenTerminal, TerminalSettings, shell_argv
from lhtb.sandbox.terminal._screen import PlainScreen

__all__ = ["DockerTerminal", "start_terminal"]

_WRAPPER = 'printf "\\033]lhtb-session;%s\\007" "$$"; exec "$@"'
_SESSION = re.compile(rb"\x1b\]lhtb-session;(\d+)\x07")
_KILL_SCRIPT = """
sid=$1
for d in /proc/[0-9]*; do
  fields=$(sed 's/^.*) //' "$d/stat" 2>/dev/null) || continue
  set -- $fields
  [ "${4:-}" = "$sid" ] && kill -KILL "${d#/proc/}" 2>/dev/null
done
exit 0
"""

RootExec = Callable[..., Awaitable[ExecResult]]


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
    full_env = {"TERM": "xterm", **(env or {})}
    call = functools.partial(
        _attach,
        api,
        container_id,
        ["sh", "-c", _WRAPPER, "sh", *shell_argv(command)],
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
        where=where,
        root_exec=root_exec,
        translate=translate,
        screen=PlainScreen(rows, cols),
        settings=chosen,
    )
    terminal.start_reader()
    await terminal._find_session(chosen.start_timeout_sec)
    if terminal._session is None and terminal.closed:
        output = terminal.raw.decode(errors="replace").strip()[-500:]
        await terminal.close()
        raise ExecError(
            f"the terminal program could not start: {output or 'no output'}",
            where=where,
            fix="Check the user, working directory and command exist in the image",
        )
    with contextlib.suppress(Exception):
        await terminal.resize(rows, cols)
    return terminal


class DockerTerminal(ScreenTerminal):
    """A TTY exec in a Docker container. Made by :func:`start_terminal`."""

    def __init__(
        self,
        *,
        api: Any,
        exec_id: str,
        response: Any,
        reader: Any,
        sock: socket.socket,
        where: str,
        root_exec: RootExec,
        translate: Callable[[str], contextlib.AbstractContextManager[None]],
        screen: PlainScreen,
        settings: TerminalSettings,
    ) -> None:
        super().__init__(screen=screen, settings=settings, where=f"{where} terminal")
        self._api = api
        self._exec_id = exec_id
        self._response = response
        self._reader = reader
        self._sock = sock
        self._session: int | None = None
        self._root_exec = root_exec
        self._translate = translate
        self._send_lock = anyio.Lock()

    async def _find_session(self, timeout: float) -> None:
        with anyio.move_on_after(timeout):
            while self._session is None and not self._eof.is_set():
                found = _SESSION.search(self._screen.raw()[:4096])
                if found:
                    self._session = int(found.group(1))
                    return
                await anyio.sleep(self._settings.poll_sec)

    def _read_chunk(self) -> bytes:
        chunk: bytes = self._reader.read1(READ_CHUNK)
        return chunk

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

    async def _set_size(self, rows: int, cols: int) -> None:
        call = functools.partial(self._api.exec_resize, self._exec_id, height=rows, width=cols)
        with self._translate(self._where):
            await anyio.to_thread.run_sync(call)

    async def close(self) -> None:
        """End the session's processes and the stream. Safe to call twice; shielded."""
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            if self._session is not None:
                with (
                    contextlib.suppress(Exception),
                    anyio.move_on_after(self._settings.close_timeout_sec),
                ):
                    await self._root_exec(
                        ["sh", "-c", _KILL_SCRIPT, "sh", str(self._session)],
                        timeout=self._settings.close_timeout_sec,
                    )
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(Exception):
                self._response.close()
            with contextlib.suppress(OSError):
                self._sock.close()
