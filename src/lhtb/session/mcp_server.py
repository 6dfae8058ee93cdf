"""``lhtb mcp``: the session's tools served over MCP stdio (the official ``mcp`` SDK, v2).

The MCP client is the session's agent: the tools are the protocol's operations
(docs/external-agents.md), and the client leaving (stdin closed) is a stop.
Nothing but MCP messages goes to stdout.
"""

from __future__ import annotations

from typing import Any

import anyio

from lhtb.episode._record import Episode
from lhtb.episode._runner import run_episode
from lhtb.errors import LhtbError
from lhtb.session.core import Session, SessionAgents
from lhtb.session.protocol import ProtocolError
from lhtb.session.server import LEAVE_GRACE_SEC
from lhtb.task._model import Task

__all__ = ["serve_mcp"]


def _missing_sdk() -> LhtbError:
    return LhtbError(
        "`lhtb mcp` needs the MCP Python SDK (mcp >= 2)", fix="pip install 'lhtb[mcp]'"
    )


def build_server(session: Session) -> Any:
    """An ``MCPServer`` whose tools carry out the session's operations."""
    try:
        from mcp.server.mcpserver import MCPServer  # noqa: PLC0415 - optional dependency
        from mcp.server.mcpserver.exceptions import ToolError  # noqa: PLC0415
    except ImportError:
        raise _missing_sdk() from None

    server = MCPServer(
        "lhtb",
        instructions=f"You are working on the task {session.task_name!r} in a sandbox. "
        "Call `hello` first for the instruction; call `submit` when you are done.",
    )

    async def call(op: str, **args: Any) -> dict[str, Any]:
        try:
            return await session.call(op, **args)
        except ProtocolError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from None

    @server.tool()
    async def hello() -> dict[str, Any]:
        """The task's instruction and the session's status (waits for the sandbox)."""
        return await call("hello", client="mcp")

    @server.tool()
    async def status() -> dict[str, Any]:
        """Turn number, remaining seconds, verifier passes so far, last feedback."""
        return await call("status")

    @server.tool(name="exec")
    async def exec_(
        cmd: str, timeout: float | None = None, cwd: str | None = None
    ) -> dict[str, Any]:
        """Run a shell command in the sandbox; returns exit_code, stdout and stderr."""
        return await call("exec", cmd=cmd, timeout=timeout, cwd=cwd)

    @server.tool()
    async def read_file(path: str) -> dict[str, Any]:
        """Read a file (an absolute path); content is text, or base64 if not UTF-8."""
        return await call("read_file", path=path)

    @server.tool()
    async def write_file(path: str, content: str, encoding: str = "utf-8") -> dict[str, Any]:
        """Create or replace a file (an absolute path) with content (text or base64)."""
        return await call("write_file", path=path, content=content, encoding=encoding)

    @server.tool()
    async def submit() -> dict[str, Any]:
        """Stop: your work is verified. Returns the feedback, or the final result."""
        return await call("submit")

    return server


async def serve_mcp(task: Task, *, agent_name: str, **episode_args: Any) -> Episode:
    """Run one episode of ``task`` whose agent is the MCP client on stdio."""
    session = Session(task.name, task.instruction)
    server = build_server(session)
    episodes: list[Episode] = []

    client_left = anyio.Event()

    async def episode(scope: anyio.CancelScope) -> None:
        episodes.append(
            await run_episode(
                task, SessionAgents(session, agent_name), on_event=session.on_event, **episode_args
            )
        )
        session.finish(episodes[0])
        with anyio.move_on_after(LEAVE_GRACE_SEC):
            await client_left.wait()  # the final submit's answer goes out; the client leaves
        scope.cancel()  # the episode is over: so is the MCP session

    async with anyio.create_task_group() as group:
        group.start_soon(episode, group.cancel_scope)
        await server.run_stdio_async()
        client_left.set()
        session.stop()  # the client left: that is a stop
        # the episode goes on to its end (a rejected stop waits out the budget)
    return episodes[0]
