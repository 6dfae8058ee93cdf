"""The agent's sandbox handle, usable only while one of its turns is running.

Freezing stops the processes an agent started, but not a *new* command: an
agent coroutine that outlives its turn (it ignored cancellation, or left a
task running) could otherwise start one during a verifier pass, or write a
file through the Engine while the artifacts are exported. The runner hands
agents a :class:`GatedSandbox` and closes the gate when a turn ends; every
call then raises :class:`~lhtb.errors.SandboxUnavailableError`. The same
handle opens again for the next turn, so agents may keep it across turns.

While a hidden checkpoint captures the agent's state the gate is *held*
(:meth:`GatedSandbox.held`): a call made then waits until the capture is over
(it is not refused: the agent must not notice), and the capture starts only
once file writes already under way have finished, so that neither a new
command nor a write lands while the state is copied.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping

import anyio

from lhtb.errors import SandboxUnavailableError
from lhtb.sandbox.base import DEFAULT_OUTPUT_LIMIT, Command, ExecResult, Sandbox, Terminal

__all__ = ["GatedSandbox"]

_FIX = "Agents act only during their turn; return from run() when done"


class GatedSandbox:
    """A :class:`~lhtb.sandbox.base.Sandbox` that refuses every call while closed."""

    def __init__(self, inner: Sandbox) -> None:
        self._inner = inner
        self._open = False
        self._hold: anyio.Event | None = None
        self._writing = 0
        self._written: anyio.Event | None = None

    @property
    def is_open(self) -> bool:
        """A turn is running."""
        return self._open

    def open(self) -> None:
        """Allow calls (a turn starts)."""
        self._open = True

    def close(self) -> None:
        """Refuse calls (the turn ended: verification or the end of the episode)."""
        self._open = False

    def _check(self) -> None:
        if not self._open:
            raise SandboxUnavailableError("the agent's turn is over", where="sandbox", fix=_FIX)

    async def _admit(self) -> None:
        """Refuse a call outside a turn; hold it while a capture is running."""
        self._check()
        while self._hold is not None:
            await self._hold.wait()
            self._check()

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Hold new calls for the block, which starts once writes under way have finished."""
        hold = self._hold = anyio.Event()
        try:
            while self._writing:
                self._written = anyio.Event()
                await self._written.wait()
            yield
        finally:
            self._hold = None
            hold.set()

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
        """See :meth:`Sandbox.exec`; refused outside a turn."""
        await self._admit()
        return await self._inner.exec(
            command,
            timeout=timeout,
            cwd=cwd,
            env=env,
            user=user,
            stdin=stdin,
            output_limit=output_limit,
        )

    async def read_file(self, path: str) -> bytes:
        """See :meth:`Sandbox.read_file`; refused outside a turn."""
        await self._admit()
        return await self._inner.read_file(path)

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """See :meth:`Sandbox.write_file`; refused outside a turn."""
        await self._admit()
        self._writing += 1
        try:
            await self._inner.write_file(path, data, mode=mode)
        finally:
            self._writing -= 1
            if not self._writing and self._written is not None:
                self._written.set()
        self._check()  # a write that raced the end of the turn is reported, not hidden

    async def terminal(
        self,
        command: Command | None = None,
        *,
        rows: int = 24,
        cols: int = 80,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> Terminal:
        """See :meth:`Sandbox.terminal`; refused outside a turn."""
        await self._admit()
        return await self._inner.terminal(command, rows=rows, cols=cols, env=env, cwd=cwd)
