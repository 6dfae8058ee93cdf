"""An interactive terminal in a local sandbox: a host pseudo-terminal handed to the init.

The host opens a pty pair and passes the slave to the sandbox's init, which
forks the program as a session leader with the slave as its controlling
terminal. A daemon thread reads the master into a :class:`PlainScreen`;
writes and resizes go to the master directly. Closing the control connection
makes the init kill every process of the session.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import socket
import struct
import termios
from collections.abc import Mapping
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from lhtb.errors import ExecError, SandboxUnavailableError
from lhtb.sandbox.base import Command
from lhtb.sandbox.local._exec import InitError, start_tty
from lhtb.sandbox.terminal._base import READ_CHUNK, ScreenTerminal, TerminalSettings, shell_argv
from lhtb.sandbox.terminal._screen import PlainScreen

if TYPE_CHECKING:
    from lhtb.sandbox.local._sandbox import LocalSandbox

__all__ = ["LocalTerminal", "start_local_terminal"]


def _set_size(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


async def start_local_terminal(
    sandbox: LocalSandbox,
    command: Command | None,
    *,
    user: str | None,
    rows: int,
    cols: int,
    env: Mapping[str, str] | None,
    cwd: str | None,
    settings: TerminalSettings | None = None,
) -> LocalTerminal:
    """Start ``command`` (default: an interactive shell) on a new pty in ``sandbox``.

    Raises:
        ExecError: an empty command, a bad size, or the program could not start.
        SandboxUnavailableError: the sandbox is gone.
    """
    where = f"local sandbox {sandbox.id} terminal"
    if rows <= 0 or cols <= 0:
        raise ExecError(f"terminal size must be positive, got {rows}x{cols}", where=where)
    chosen = settings or TerminalSettings()
    master, slave = os.openpty()
    _set_size(slave, rows, cols)
    message = {
        "op": "exec",
        "argv": shell_argv(command),
        "env": {**sandbox.env, "TERM": "xterm", **(env or {})},
        "cwd": cwd or sandbox.workdir,
        "user": user,
        "timeout": None,
        "cgroup": "ctl" if sandbox.frozen else "agent",
    }
    try:
        call = functools.partial(
            start_tty, sandbox.socket_path, message, slave, timeout=chosen.start_timeout_sec
        )
        control = await anyio.to_thread.run_sync(call)
    except InitError as error:
        os.close(master)
        if error.start_failure:
            raise ExecError(f"terminal could not start: {error}", where=where) from error
        raise SandboxUnavailableError(str(error), where=where) from error
    finally:
        os.close(slave)
    terminal = LocalTerminal(master, control, PlainScreen(rows, cols), chosen, where)
    terminal.start_reader()
    return terminal


class LocalTerminal(ScreenTerminal):
    """A program on a pseudo-terminal in a local sandbox. Made by :func:`start_local_terminal`."""

    def __init__(
        self,
        master: int,
        control: socket.socket,
        screen: PlainScreen,
        settings: TerminalSettings,
        where: str,
    ) -> None:
        super().__init__(screen=screen, settings=settings, where=where)
        self._master = master
        self._control = control

    def _read_chunk(self) -> bytes:
        return os.read(self._master, READ_CHUNK)

    async def send(self, keys: str | bytes) -> None:
        """Write ``keys`` to the program's terminal.

        Raises:
            SandboxUnavailableError: the session has ended.
        """
        self._check_open()
        data = keys.encode() if isinstance(keys, str) else keys
        view = memoryview(data)
        try:
            while view:
                written = await anyio.to_thread.run_sync(os.write, self._master, view)
                view = view[written:]
        except OSError as error:
            raise SandboxUnavailableError(
                f"cannot write to the terminal ({error})", where=self._where
            ) from error

    async def _set_size(self, rows: int, cols: int) -> None:
        _set_size(self._master, rows, cols)

    async def close(self) -> None:
        """End every process of the session and the pty. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self._control.close()
        with contextlib.suppress(OSError):
            os.close(self._master)
