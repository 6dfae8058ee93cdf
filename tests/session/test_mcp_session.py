"""Episodes driven through `lhtb mcp` by the MCP SDK's own client (stdio_client + ClientSession)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import lhtb
from lhtb.episode import TurnEnd

from .session_helpers import write_task

pytestmark = pytest.mark.anyio
mcp = pytest.importorskip("mcp")

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"
WAIT_SEC = 120.0  # far above the seconds an episode's last verifier pass takes here


def server(task: Path, out: Path, backend: str, *extra: str) -> StdioServerParameters:
    script = "import sys; from lhtb.cli import main; sys.exit(main())"
    argv = ["-c", script, "mcp", str(task), "--backend", backend, "--out", str(out), *extra]
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return StdioServerParameters(command=sys.executable, args=argv, env=env)


async def finished_record(out: Path) -> lhtb.Episode:
    """The record, once the episode (which outlives the MCP client that left) has ended."""
    with anyio.fail_after(WAIT_SEC):
        while True:
            if (out / "episode.json").exists():
                episode = lhtb.Episode.load(out / "episode.json")
                if episode.finished:
                    return episode
            await anyio.sleep(0.2)


def result(answer: Any) -> dict[str, Any]:
    assert not answer.is_error, answer.content
    data: dict[str, Any] = json.loads(answer.content[0].text)
    return data


async def test_an_mcp_client_is_rejected_then_solves(backend_name: str, tmp_path: Path) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    async with (
        stdio_client(server(tmp_path / "task", out, backend_name)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert tools == {"hello", "status", "exec", "read_file", "write_file", "submit"}
        hello = result(await session.call_tool("hello", {}))
        assert hello["instruction"] == "Write 42 to /app/answer.txt.\n"
        result(await session.call_tool("write_file", {"path": "/app/answer.txt", "content": "41"}))
        shown = result(await session.call_tool("exec", {"cmd": "cat /app/answer.txt"}))
        assert (shown["stdout"], shown["exit_code"]) == ("41", 0)
        refused = await session.call_tool("read_file", {"path": "relative"})
        assert refused.is_error
        assert "bad_request" in refused.content[0].text
        rejected = result(await session.call_tool("submit", {}))
        assert (rejected["passed"], rejected["final"]) == (False, False)
        assert "did not pass" in rejected["feedback"]
        result(await session.call_tool("write_file", {"path": "/app/answer.txt", "content": "42"}))
        solved = result(await session.call_tool("submit", {}))
        assert solved == {"passed": True, "final": True, "outcome": "solved", "reward": 1.0}
    episode = lhtb.Episode.load(out / "episode.json")
    assert (str(episode.outcome), [p.reward for p in episode.passes]) == ("solved", [0.0, 1.0])
    assert episode.config.agent == "mcp"


async def test_an_mcp_client_that_leaves_mid_turn_has_stopped(
    backend_name: str, tmp_path: Path
) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    params = server(tmp_path / "task", out, backend_name, "--name", "leaver")
    params.args += ["--checkpoint-every", "600"]  # through the detached server too
    async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        result(await session.call_tool("hello", {}))
        result(await session.call_tool("write_file", {"path": "/app/answer.txt", "content": "42"}))
    episode = await finished_record(out)  # the client left; the stop was verified without it
    assert [t.end for t in episode.turns] == [TurnEnd.RETURNED]  # not the 120 s deadline
    assert (str(episode.outcome), episode.config.agent) == ("solved", "leaver")
    assert episode.config.checkpoint_interval_sec == 600


async def test_an_idle_mcp_client_is_cut_off_at_the_budget(
    backend_name: str, tmp_path: Path
) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    async with (
        stdio_client(server(tmp_path / "task", out, backend_name, "--budget", "4")) as (r, w),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        assert result(await session.call_tool("hello", {}))["in_turn"] is True
        waited = await session.call_tool("exec", {"cmd": "sleep 600", "timeout": 900})
        # cut off at the budget, not after the 900 s asked for: the command times out at
        # the deadline, or the turn ends under it first (whichever the backend sees first)
        assert (not waited.is_error and result(waited)["timed_out"]) or (
            "not_in_turn" in waited.content[0].text
        ), waited.content
        refused = await session.call_tool("exec", {"cmd": "true"})
        assert refused.is_error
        assert "not_in_turn" in refused.content[0].text
    episode = await finished_record(out)
    assert [t.end for t in episode.turns] == [TurnEnd.DEADLINE]
    assert str(episode.outcome) == "unsolved"
    assert episode.passes[-1].final
