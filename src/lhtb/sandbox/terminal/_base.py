"""What every backend's terminal shares: a reader thread feeding a plain screen.

A backend subclasses :class:`ScreenTerminal`, supplies ``_read_chunk`` (blocking,
``b""`` at end of stream), ``send``, ``_set_size`` and ``close``, and calls
:meth:`ScreenTerminal.start_reader` once the stream is attached.
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable

import anyio

from lhtb.errors import ExecError, SandboxUnavailableError
from lhtb.sandbox.base import Command, Terminal
from lhtb.sandbox.terminal._screen import PlainScreen

__all__ = ["DEFAULT_SHELL", "READ_CHUNK", "ScreenTerminal", "TerminalSettings", "shell_argv"]

DEFAULT_SHELL = "if command -v bash >/dev/null 2>&1; then exec bash -i; else exec sh -i; fi"
READ_CHUNK = 64 * 1024


class TerminalSettings:
    """Timings of a terminal session (seconds)."""

    settle_sec: float = 0.15
    """``read`` returns once output has been quiet this long."""
    poll_sec: float = 0.02
    """How often ``read`` looks for new output."""
    start_timeout_sec: float = 30.0
    """Bound on starting and attaching the session."""
    close_timeout_sec: float = 30.0
    """Bound on ending the session's processes."""


def shell_argv(command: Command | None) -> list[str]:
    """The argv for ``command``: an interactive shell when None, ``sh -c`` for a string.

    Raises:
        ExecError: an empty command.
    """
    if command is None:
        return ["sh", "-c", DEFAULT_SHELL]
    argv = ["sh", "-c", command] if isinstance(command, str) else [str(a) for a in command]
    if not argv or (isinstance(command, str) and not command.strip()):
        raise ExecError("empty command", where="terminal", fix="Pass a command or None")
    return argv


class ScreenTerminal(Terminal):
    """A terminal whose output a daemon thread feeds into a :class:`PlainScreen`."""

    def __init__(self, *, screen: PlainScreen, settings: TerminalSettings, where: str) -> None:
        self._screen = screen
        self._settings = settings
        self._where = where
        self._eof = threading.Event()
        self._closed = False
        self._tap: Callable[[bytes], None] | None = None
        self._tap_lock = threading.Lock()

    @abc.abstractmethod
    def _read_chunk(self) -> bytes:
        """Block for the next output bytes; ``b""`` at end of stream (may raise OSError)."""

    @abc.abstractmethod
    async def _set_size(self, rows: int, cols: int) -> None:
        """Tell the program its terminal size."""

    def start_reader(self) -> None:
        """Start the thread that reads the program's output until end of stream."""
        threading.Thread(target=self._read_loop, name="lhtb-terminal", daemon=True).start()

    def _read_loop(self) -> None:
        try:
            while chunk := self._read_chunk():
                with self._tap_lock:
                    self._screen.feed(chunk)
                    if self._tap is not None:
                        self._tap(chunk)
        except (OSError, ValueError):
            pass  # the stream is gone: every holder of the other side has closed it
        finally:
            with self._tap_lock:
                self._eof.set()
                if self._tap is not None:
                    self._tap(b"")

    def tap(self, callback: Callable[[bytes], None]) -> None:
        """Also hand every output chunk to ``callback``, on the reader thread (``lhtb play``).

        It first gets the output kept so far (:attr:`raw`), then each new chunk
        as it is read, and ``b""`` once at the end of the stream: nothing twice,
        nothing lost. A callback that blocks holds up the reading.
        """
        with self._tap_lock:
            self._tap = callback
            if kept := self._screen.raw():
                callback(kept)
            if self._eof.is_set():
                callback(b"")

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
        await self._set_size(rows, cols)
        self._screen.resize(rows, cols)
