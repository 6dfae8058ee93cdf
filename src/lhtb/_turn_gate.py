"""The agent's sandbox handle, usable only while one of its turns is running.

Freezing stops the processes an agent started, but not a *new* command: an
agent coroutine that outlives its turn (it ignored cancellation, or left a
task running) could otherwise start one during a verifier pass, or write a
file through the Engine while the artifacts are exported. The runner hands
agents a :class:`GatedSandbox` and closes the gate when a turn ends; every
call then raises :class:`~lhtb.errors.SandboxUnavailableError`. The same
handle opens again for the next turn, so agents may keep it across turns.
"""

from __future__ import annotations

from collections.abc import Mapping

from lhtb.errors import SandboxUnavailableError
from lhtb.sandbox.base import DEFAULT_OUTPUT_LIMIT, Command, ExecResult, Sandbox, Terminal

__all__ = ["GatedSandbox"]

_FIX = "Agents act only during their turn; return from run() when done"


class GatedSandbox:
    """A :class:`~lhtb.sandbox.base.Sandbox` that refuses every call while closed."""

    def __init__(self, inner: Sandbox) -> None:
        self._inner = inner
        self._open = False

    def open(self) -> None:
        """Allow calls (a turn starts)."""
        self._open = True

    def close(self) -> None:
        """Refuse calls (the turn ended: verification or the end of the episode)."""
        self._open = False

    def _check(self) -> None:
        if not self._open:
            raise SandboxUnavailableError("the agent's turn is over", where="sandbox", fix=_FIX)

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
        self._check()
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
        self._check()
        return await self._inner.read_file(path)

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """See :meth:`Sandbox.write_file`; refused outside a turn."""
        self._check()
        await self._inner.write_file(path, data, mode=mode)
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
        self._check()
        return await self._inner.terminal(command, rows=rows, cols=cols, env=env, cwd=cwd)
