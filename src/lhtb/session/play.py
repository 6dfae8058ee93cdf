"""``lhtb play``: a person works a task in a real shell inside the sandbox.

The shell runs on the sandbox's terminal (a PTY); the person's terminal is
put in raw mode and relayed both ways, its size passed on (and again on
``SIGWINCH``). The terminal's title is the status line (task, turn, time
left, passes), which no full-screen program is disturbed by. ``lhtb submit``
in the shell reaches the relay through a private escape sequence (see
:mod:`lhtb.session._play_shell`); the session's socket is served too, so
``lhtb submit SESSION`` and ``lhtb exec SESSION`` work from any terminal.
Leaving the shell (``exit``, Ctrl-D, Ctrl-]) is a stop; the episode then
goes on to its end as the rules say. SIGTERM or SIGHUP cancels the episode
(its record is saved). The terminal is restored on every way out.
"""

from __future__ import annotations

import contextlib
import os
import signal
import termios
import threading
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel

from lhtb.episode._record import Episode, TurnEnd
from lhtb.errors import LhtbError, SandboxUnavailableError
from lhtb.sandbox.terminal._base import ScreenTerminal
from lhtb.session._play_output import OutputFilter, TerminalWriter
from lhtb.session._play_shell import new_token, shell_command, shell_env
from lhtb.session.client import verdict_text
from lhtb.session.core import Session
from lhtb.session.protocol import ProtocolError
from lhtb.session.server import serve_session
from lhtb.task._model import Task

__all__ = ["LEAVE_KEY", "play_session", "status_line"]

LEAVE_KEY = b"\x1d"
"""Ctrl-]: leave the shell (a stop), as in telnet."""
HELP = (
    "You are in a shell inside the task's sandbox; the terminal's title shows the time left.\n"
    "In the shell: `lhtb submit` has your work verified, `lhtb status`, `lhtb instruction`.\n"
    "Leaving the shell (exit, Ctrl-D, Ctrl-]) is a stop. Keys typed while your work is "
    "verified are dropped."
)
_TITLE_PUSH, _TITLE_POP = b"\x1b[22;2t", b"\x1b[23;2t"


def status_line(status: dict[str, Any]) -> str:
    """``lhtb | task | turn 2 | 12:03 left | passes 1``."""
    left = status.get("remaining_sec")
    clock = "--:--" if left is None else f"{int(left) // 60:02d}:{int(left) % 60:02d}"
    return (
        f"lhtb | {status['task']} | turn {status['turn']} | {clock} left | "
        f"passes {status['passes']}"
    )


async def play_session(
    task: Task,
    *,
    person: str,
    show: Callable[[str], None],
    on_ready: Callable[[Path, Session], Any] | None = None,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
    **episode_args: Any,
) -> Episode:
    """Run one episode of ``task`` with a person at the terminal as its agent.

    Raises:
        LhtbError: ``stdin_fd`` is not a terminal (before anything starts), or the
            backend's terminal cannot be relayed.
    """
    if not os.isatty(stdin_fd):
        raise LhtbError("`lhtb play` needs a terminal", fix="run it in a terminal, not a pipe")
    try:
        return await _play(task, person, show, on_ready, stdin_fd, stdout_fd, episode_args)
    except* LhtbError as errors:
        raise errors.exceptions[0] from None  # one error for the person, not a group


async def _play(
    task: Task,
    person: str,
    show: Callable[[str], None],
    on_ready: Callable[[Path, Session], Any] | None,
    stdin_fd: int,
    stdout_fd: int,
    episode_args: dict[str, Any],
) -> Episode:
    session = Session(task.name, task.instruction)
    episodes: list[Episode] = []
    caught: list[signal.Signals] = []
    done = anyio.Event()
    async with anyio.create_task_group() as group:

        async def episode() -> None:
            episodes.append(
                await serve_session(
                    task,
                    agent_name=f"human:{person}",
                    session=session,
                    on_ready=on_ready,
                    **episode_args,
                )
            )
            done.set()

        group.start_soon(episode)
        group.start_soon(_watch_signals, group.cancel_scope, caught)
        hello = await session.call("hello", client="play")
        relay = _Relay(session, stdin_fd, stdout_fd)
        if session.turn is not None:  # else the episode could not start: its record says why
            show(hello["instruction"].rstrip() + "\n")
            show(HELP + "\n")
            await relay.run()
        if session.episode is None:
            how = "the shell ended" if relay.shell_ended else "you left the shell"
            show(f"{how}: that is a stop; your work is verified now")
            try:
                verdict = await session.submit()
            except ProtocolError as exc:
                show(f"lhtb: {exc.message}")
            else:
                show(verdict_text(verdict))
                if not verdict["final"]:
                    show("the episode goes on to its end by the rules (Ctrl-C abandons it)")
        await done.wait()  # the episode goes on to its end
        group.cancel_scope.cancel()  # the signal watcher
    if caught:
        raise LhtbError(
            f"{caught[0].name}: the episode was cancelled",
            where=str(episode_args.get("output_dir", "the episode")),
            fix="its record says what was done; play the task again for a full episode",
        )
    return episodes[0]


async def _watch_signals(scope: anyio.CancelScope, caught: list[signal.Signals]) -> None:
    """SIGTERM, or SIGHUP (the terminal closed): cancel the episode; its record is saved."""
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
        async for received in signals:
            caught.append(signal.Signals(received))
            scope.cancel()
            return


class _Relay:
    """The person's terminal joined to the play shell until one of them ends."""

    def __init__(self, session: Session, stdin_fd: int, stdout_fd: int) -> None:
        self.session = session
        self.stdin_fd = stdin_fd
        self.token = new_token()
        self.filter = OutputFilter(self.token)
        self.writer = TerminalWriter(stdout_fd)
        self.submitting = False
        self.shell_ended = False
        self._seen = self._turn = 0
        self._send, self._requests = anyio.create_memory_object_stream[str | None](64)
        self._loop_token = anyio.lowlevel.current_token()
        self._loop_thread = threading.get_ident()

    async def run(self) -> None:
        """Relay until the shell ends, the person leaves, or the episode ends."""
        turn = self.session.turn
        if turn is None:
            return  # the turn has just ended
        rows, cols = _size(self.writer.fd)
        try:
            terminal = await turn.sandbox.terminal(
                shell_command(), rows=rows, cols=cols, env=shell_env(self.token)
            )
        except SandboxUnavailableError:
            return  # the turn ended before the shell started
        try:
            if not isinstance(terminal, ScreenTerminal):
                raise LhtbError(
                    f"a {type(terminal).__name__} cannot be relayed to your terminal",
                    fix="play with --backend docker or --backend local",
                )
            with _raw_mode(self.stdin_fd):
                self.writer.inject(_TITLE_PUSH)
                terminal.tap(self._on_output)
                try:
                    async with anyio.create_task_group() as group:
                        group.start_soon(self._keys, terminal, group.cancel_scope)
                        group.start_soon(self._resizes, terminal)
                        group.start_soon(self._watch, group.cancel_scope)
                        await self._serve_requests(terminal)
                        group.cancel_scope.cancel()
                finally:
                    self.writer.inject(_TITLE_POP + b"\r\n", force=True)
                    self.writer.close()
        finally:
            with anyio.CancelScope(shield=True):
                await terminal.close()

    # -- the shell's side (its output comes on the terminal's reader thread) -----------------

    def _on_output(self, chunk: bytes) -> None:
        data, requests = self.filter.feed(chunk)
        self.writer.output(data)
        for request in requests:
            self._post(request)
        if not chunk:
            self._post(None)  # the shell ended

    def _post(self, item: str | None) -> None:
        with contextlib.suppress(
            anyio.RunFinishedError,
            anyio.WouldBlock,
            anyio.BrokenResourceError,  # the relay has ended
            anyio.ClosedResourceError,
        ):
            if threading.get_ident() == self._loop_thread:
                self._send.send_nowait(item)
            else:
                anyio.from_thread.run_sync(self._send.send_nowait, item, token=self._loop_token)

    async def _serve_requests(self, terminal: ScreenTerminal) -> None:
        async with self._requests:
            async for request in self._requests:
                if request is None:
                    self.shell_ended = True
                    return
                code = await self._answer(request)
                if self.session.episode is not None:
                    return  # the verdict was final
                with contextlib.suppress(SandboxUnavailableError):
                    await terminal.send(f"{code}\r")

    async def _answer(self, request: str) -> int:
        if request == "status":
            self._say(status_line(self.session.status()))
            return 0
        if request == "instruction":
            self._say(self.session.instruction.rstrip())
            return 0
        if request != "submit":
            self._say(f"unknown request {request!r}")
            return 2
        self.submitting = True
        try:
            self._say("submitted: your work is being verified...")
            verdict = await self.session.submit()
        except ProtocolError as exc:
            self._say(exc.message)
            return 1
        finally:
            self.submitting = False
            self._seen, self._turn = len(self.session.events), self.session.turns  # told here
        self._say(verdict_text(verdict))
        if not verdict["final"]:
            self._say(status_line(self.session.status()))
        return 0 if verdict["passed"] else 1

    def _say(self, text: str) -> None:
        lines = text.replace("\r\n", "\n").split("\n")
        self.writer.inject(b"".join(f"\r\n[lhtb] {line}".encode() for line in lines) + b"\r\n")

    # -- the person's side -------------------------------------------------------------------

    async def _keys(self, terminal: ScreenTerminal, scope: anyio.CancelScope) -> None:
        while True:
            await anyio.wait_readable(self.stdin_fd)
            try:
                data = os.read(self.stdin_fd, 4096)
            except OSError:
                data = b""
            leave = not data or LEAVE_KEY in data
            data = data.split(LEAVE_KEY)[0]
            if data and self.session.turn is not None and not self.submitting:
                with contextlib.suppress(SandboxUnavailableError):
                    await terminal.send(data)
            if leave:
                scope.cancel()
                return

    async def _resizes(self, terminal: ScreenTerminal) -> None:
        with anyio.open_signal_receiver(signal.SIGWINCH) as signals:
            async for _ in signals:
                with contextlib.suppress(LhtbError):
                    await terminal.resize(*_size(self.writer.fd))

    async def _watch(self, scope: anyio.CancelScope) -> None:
        """Keep the title current; tell what happened that the shell did not ask for."""
        self._seen, self._turn = len(self.session.events), self.session.turns
        title = ""
        while self.session.episode is None:
            events, self._seen = self.session.events[self._seen :], len(self.session.events)
            if not self.submitting:
                self._tell(events)
            now = status_line(self.session.status())
            if now != title:
                title = now
                self.writer.title(now)
            with anyio.move_on_after(1.0):
                await self.session.changed()
        if not self.submitting:  # else the request server ends once it has shown the verdict
            scope.cancel()

    def _tell(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event["event"] != "agent_turn_finished":
                continue
            if event.get("end") == TurnEnd.DEADLINE:
                self._say("time is up: your work is verified now")
            else:
                self._say("submitted from another terminal: your work is being verified...")
        if self.session.turn is not None and self.session.turns > self._turn:
            self._turn = self.session.turns
            self._say(f"rejected. {self.session.feedback}")


def _size(fd: int) -> tuple[int, int]:
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return 24, 80
    return max(size.lines, 1), max(size.columns, 1)


@contextlib.contextmanager
def _raw_mode(fd: int) -> Iterator[None]:
    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
