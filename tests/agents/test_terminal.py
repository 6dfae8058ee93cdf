"""Interactive terminals: the plain screen model, and playing a game on Docker and local."""

from __future__ import annotations

import re
import textwrap
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from _atif_check import check_trajectory
from _fake_openai import FakeOpenAI, Reply, call, finish, serve

import lhtb
from lhtb.agents import OpenAIAgent
from lhtb.errors import ExecError, SandboxUnavailableError
from lhtb.sandbox.base import ManagedSandbox, SandboxBackend, SandboxSpec, Terminal
from lhtb.sandbox.docker import DockerBackend
from lhtb.sandbox.local import LocalBackend
from lhtb.sandbox.terminal._screen import PlainScreen

GAME = """\
#!/bin/sh
secret=$(cat /app/secret 2>/dev/null || echo 37)
tries=0
echo "Guess my number (1-100)."
while printf 'guess> ' && read g; do
  tries=$((tries + 1))
  if [ "$g" -lt "$secret" ]; then echo higher
  elif [ "$g" -gt "$secret" ]; then echo lower
  else echo "correct after $tries tries"; echo "$tries" > /app/won; exit 0
  fi
done
"""
DOCKERFILE = (
    "FROM debian:bookworm-slim\nRUN useradd -m player && mkdir -p /app && chown player /app\n"
    "COPY game.sh /usr/local/bin/game\nRUN chmod 755 /usr/local/bin/game\nWORKDIR /app\n"
)


# -- the screen model (no Docker) ------------------------------------------------------------


def test_screen_strips_control_sequences_and_keeps_raw() -> None:
    screen = PlainScreen(rows=3, cols=20)
    data = b"\x1b[1;32mgreen\x1b[0m text\r\n\x1b]0;title\x07prompt$ \xe2\x82"
    screen.feed(data)
    screen.feed(b"\xac done\r\n")
    assert screen.take_new() == "green text\nprompt$ \u20ac done\n"
    assert screen.take_new() == ""
    assert screen.raw() == data + b"\xac done\r\n"
    assert screen.screen() == "green text\nprompt$ \u20ac done\n"


def test_screen_carriage_return_backspace_erase_and_scroll() -> None:
    screen = PlainScreen(rows=2, cols=80)
    screen.feed(b"progress 10%\rprogress 99%\r\nabc\b\bX\x1b[K\r\nlast")
    assert screen.screen() == "aX\nlast"
    assert "progress 99%" in screen.take_new()
    screen.feed(b"\x1b[2J\x1b[Hclean")
    assert screen.screen() == "clean"


def test_screen_wraps_long_lines_and_caps_raw() -> None:
    screen = PlainScreen(rows=5, cols=4, raw_limit=6)
    screen.feed(b"abcdefghij")
    assert screen.screen() == "abcd\nefgh\nij"
    assert screen.raw() == b"efghij"


# -- Docker ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def game_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("game-env")
    (directory / "Dockerfile").write_text(DOCKERFILE)
    (directory / "game.sh").write_text(GAME)
    return directory


@pytest.fixture(params=[pytest.param("docker", marks=pytest.mark.docker), "local"])
async def sandbox(request: pytest.FixtureRequest, game_env: Path) -> AsyncIterator[ManagedSandbox]:
    backend: SandboxBackend = (
        DockerBackend(request.getfixturevalue("docker_client"))
        if request.param == "docker"
        else LocalBackend()
    )
    task = lhtb.Task(
        name="test-terminal",
        instruction="play",
        environment=lhtb.EnvironmentConfig(),
        agent=lhtb.AgentConfig(user="player"),
        environment_dir=game_env,
    )
    image = await backend.prepare(task)
    box = await backend.start(
        SandboxSpec(image=image, task=task, run_id=f"test-term-{uuid.uuid4().hex[:8]}")
    )
    try:
        yield box  # type: ignore[misc]
    finally:
        await box.destroy()


async def read_until(terminal: Terminal, *wanted: str, timeout: float = 60) -> str:
    """Read until one of ``wanted`` has appeared (output may arrive in pieces)."""
    text = ""
    with anyio.fail_after(timeout):
        while not any(w in text for w in wanted):
            text += await terminal.read(timeout=1.0)
    return text


async def play(terminal: Terminal) -> str:
    """Binary search through the game's prompts; returns everything read."""
    transcript = await read_until(terminal, "guess>")
    low, high = 1, 100
    while "correct" not in transcript:
        assert "guess>" in transcript.splitlines()[-1], transcript
        guess = (low + high) // 2
        await terminal.send(f"{guess}\n")
        reply = await read_until(terminal, "guess>", "correct")
        transcript += reply
        if "higher" in reply:
            low = guess + 1
        elif "lower" in reply:
            high = guess - 1
    return transcript


@pytest.mark.anyio
async def test_terminal_plays_an_interactive_game(sandbox: ManagedSandbox) -> None:
    await sandbox.write_file("/app/secret", "73\n")
    view = sandbox.agent_view()
    async with await view.terminal(["game"], rows=10, cols=60) as terminal:
        transcript = await play(terminal)
        assert "correct after" in transcript
        with anyio.fail_after(60):  # the program exited: the session ends
            while not terminal.closed:
                await terminal.read(timeout=0.1)
        assert b"Guess my number" in terminal.raw
        assert terminal.screen().splitlines()[-1].startswith("correct after")
        with pytest.raises(SandboxUnavailableError):
            await terminal.send("1\n")
    assert (await sandbox.read_file("/app/won")).strip().isdigit()


@pytest.mark.anyio
async def test_shell_terminal_user_resize_and_close_kills_its_processes(
    sandbox: ManagedSandbox,
) -> None:
    terminal = await sandbox.agent_view().terminal(env={"GREETING": "hi-there"})
    await terminal.send("whoami; echo $GREETING; stty size; echo done-$((1+1))\n")
    output = await read_until(terminal, "done-2")
    assert "player" in output
    assert "hi-there" in output
    assert "24 80" in output
    await terminal.resize(30, 100)
    await terminal.send("stty size; sleep 600 & echo started-$((2+1))\n")
    assert "30 100" in await read_until(terminal, "started-3")
    assert "sleep 600" in await processes(sandbox)  # the background job runs
    await terminal.close()
    await terminal.close()  # twice is fine
    assert terminal.closed
    with anyio.fail_after(60):  # closing the session ends its processes
        while "sleep 600" in await processes(sandbox):
            await anyio.sleep(0.1)
    with pytest.raises(ExecError, match="could not start"):
        await sandbox.agent_view().terminal(cwd="/no/such/dir")


async def processes(sandbox: ManagedSandbox) -> str:
    """The command lines of every process in the sandbox."""
    result = await sandbox.exec("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '", timeout=60)
    return result.stdout_text


def game_task(root: Path) -> Path:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (root / "environment" / "game.sh").write_text(GAME)
    (root / "tests" / "test.sh").write_text(
        "#!/bin/sh\n[ -s /app/won ] && s=1 || s=0\n"
        'printf \'{"subtasks": [{"name": "won", "score": %s}]}\' $s \\\n'
        "  > /logs/verifier/scorecard.json\n"
    )
    (root / "instruction.md").write_text("Win the game `game` (guess the number).\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            """\
            schema_version = "1.1"

            [agent]
            timeout_sec = 120
            user = "player"

            [verifier]
            isolation = "shared"
            timeout_sec = 60
            """
        )
    )
    return root


@pytest.mark.docker
@pytest.mark.anyio
async def test_agent_plays_the_game_through_the_terminal(
    docker_client: Any, tmp_path: Path
) -> None:
    bounds = {"low": 1, "high": 100}

    def guess(request: dict[str, Any]) -> Reply:
        last = request["messages"][-1]["content"]
        if "correct after" in last:
            return finish("won")
        if "higher" in last:
            bounds["low"] = bounds["guess"] + 1
        elif "lower" in last:
            bounds["high"] = bounds["guess"] - 1
        bounds["guess"] = (bounds["low"] + bounds["high"]) // 2
        return Reply(
            tool_calls=(call("terminal", {"keys": f"{bounds['guess']}\n", "wait_sec": 3}),)
        )

    start = Reply(tool_calls=(call("terminal", {"keys": "game\n", "wait_sec": 3}),))
    task = lhtb.load_task(game_task(tmp_path / "task"))
    with serve(FakeOpenAI([start], fallback=guess)) as fake:
        agent = OpenAIAgent("fake-model", base_url=fake.base_url, api_key="k", use_terminal=True)
        episode = await lhtb.run_episode(
            task, agent, backend=DockerBackend(docker_client), output_dir=tmp_path / "ep",
            run_id=f"test-term-{uuid.uuid4().hex[:8]}",
        )  # fmt: skip
    assert str(episode.outcome) == "solved", fake.requests[-1]["messages"][-1]
    names = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert names == {"terminal", "read_file", "write_file", "finish"}
    assert re.search(r"correct after \d+ tries", fake.requests[-1]["messages"][-1]["content"])
    check_trajectory(tmp_path / "ep" / "trajectory.json")
