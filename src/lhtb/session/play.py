"""``lhtb play``: a person works a task through a command loop into the sandbox.

Each line typed runs in the sandbox (``cd`` is remembered between lines);
``submit`` stops and has the work verified; ``status`` and ``instruction``
show what they say; ``exit`` (or end of input) is a stop too. The prompt is
the status line: turn, remaining time, passes so far. The session's socket
is served as well, so ``lhtb exec`` and ``lhtb submit`` work from any terminal.
"""

from __future__ import annotations

import queue
import shlex
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from lhtb.episode import Episode
from lhtb.session.core import Session
from lhtb.session.protocol import ProtocolError
from lhtb.session.server import serve_session
from lhtb.task import Task

__all__ = ["play_session", "status_line"]

HELP = (
    "Type shell commands; they run in the task's sandbox. `submit` (or `lhtb submit`) has "
    "your work verified; `status`, `instruction`, `exit`."
)


def status_line(status: dict[str, Any]) -> str:
    """``[task | turn 2 | 12:03 left | passes 1]``."""
    left = status.get("remaining_sec")
    clock = "--:--" if left is None else f"{int(left) // 60:02d}:{int(left) % 60:02d}"
    return f"[{status['task']} | turn {status['turn']} | {clock} left | passes {status['passes']}]"


async def play_session(
    task: Task,
    *,
    person: str,
    show: Callable[[str], None],
    on_ready: Callable[[Path, Session], Any] | None = None,
    **episode_args: Any,
) -> Episode:
    """Run one episode of ``task`` with a person at the terminal as its agent."""
    session = Session(task.name, task.instruction)
    episodes: list[Episode] = []
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
            group.cancel_scope.cancel()

        group.start_soon(episode)
        await _Loop(session, show).run()
        await anyio.sleep_forever()  # the episode goes on to its end
    return episodes[0]


class _Loop:
    def __init__(self, session: Session, show: Callable[[str], None]) -> None:
        self.session = session
        self.show = show
        self.cwd: str | None = None

    async def run(self) -> None:
        hello = await self.session.call("hello", client="play")
        self.show(hello["instruction"].rstrip() + "\n")
        self.show(HELP)
        lines = _Lines()
        while self.session.episode is None:
            status = self.session.status()
            line = await lines.next(f"{status_line(status)} {self.cwd or ''}$ ")
            if line is None or line.strip() in ("exit", "logout"):
                self.show("stopping: your work is verified now")
                await self._submit()
                return
            try:
                await self._one(line.strip())
            except ProtocolError as exc:
                self.show(f"lhtb: {exc.code}: {exc.message}")

    async def _one(self, line: str) -> None:
        if not line:
            return
        if line in ("submit", "lhtb submit"):
            await self._submit()
        elif line == "status":
            self.show(str(self.session.status()))
        elif line == "instruction":
            self.show(self.session.instruction)
        elif line == "cd" or line.startswith("cd "):
            target = line[2:].strip() or "~"
            where = f"cd {shlex.quote(self.cwd)} && " if self.cwd else ""
            moved = await self.session.call("exec", cmd=f"{where}cd {target} && pwd")
            if moved["exit_code"] == 0:
                self.cwd = moved["stdout"].strip()
            else:
                self.show(moved["stderr"].rstrip())
        else:
            result = await self.session.call("exec", cmd=line, cwd=self.cwd)
            for text in (result["stdout"], result["stderr"]):
                if text:
                    self.show(text.rstrip("\n"))
            if result["exit_code"] != 0:
                self.show(f"(exit {result['exit_code']})")

    async def _submit(self) -> None:
        verdict = await self.session.call("submit")
        if verdict["final"]:
            reward = verdict.get("reward")
            shown = "no reward" if reward is None else f"reward {reward:g}"
            self.show(f"the episode is over: {verdict['outcome']} ({shown})")
        else:
            self.show(f"rejected. {verdict['feedback']}")


class _Lines:
    """Lines typed at the terminal, read on a daemon thread.

    A thread blocked in ``input()`` when the budget ends must not keep the
    process alive, so it is not one of anyio's worker threads.
    """

    def __init__(self) -> None:
        self._prompts: queue.Queue[tuple[str, MemoryObjectSendStream[str | None]]] = queue.Queue()
        self._token = anyio.lowlevel.current_token()
        threading.Thread(target=self._read, daemon=True, name="lhtb-play-input").start()

    async def next(self, prompt: str) -> str | None:
        """The next line, or ``None`` at the end of input."""
        send, receive = anyio.create_memory_object_stream[str | None](1)
        self._prompts.put((prompt, send))
        async with receive:
            return await receive.receive()

    def _read(self) -> None:
        while True:
            prompt, send = self._prompts.get()
            try:
                line: str | None = input(prompt)
            except EOFError:
                line = None
            try:
                anyio.from_thread.run_sync(send.send_nowait, line, token=self._token)
            except anyio.RunFinishedError:
                return
            if line is None:
                return
