"""Adapters and agent specs: from_callable, ``openai:MODEL``, and ``lhtb run --base-url``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _agent_helpers import FakeSandbox, make_turn, write_task
from _fake_openai import FakeOpenAI, bash, finish, serve
from click.testing import CliRunner

import lhtb
from lhtb.agents import CallableAgent, OpenAIAgent, agent_factory, from_callable
from lhtb.cli import main
from lhtb.errors import AgentLoadError


async def solve(turn: lhtb.Turn) -> None:
    await turn.sandbox.write_file("/app/answer.txt", "42")
    turn.usage.record(prompt_tokens=5, completion_tokens=1, model="m")


@pytest.mark.anyio
async def test_from_callable_is_an_agent() -> None:
    agent = from_callable(solve)
    assert isinstance(agent, lhtb.Agent)
    assert agent.name == "solve"
    sandbox = FakeSandbox()
    turn = make_turn(sandbox)
    await agent.run(turn)
    assert sandbox.files["/app/answer.txt"] == b"42"
    assert turn.usage.total.prompt_tokens == 5
    assert from_callable(solve, name="mine").name == "mine"


def test_from_callable_refuses_sync_functions() -> None:
    def blocking(turn: lhtb.Turn) -> None:
        pass

    with pytest.raises(TypeError, match="async def"):
        from_callable(blocking)  # type: ignore[arg-type]

    class Callable:
        async def __call__(self, turn: lhtb.Turn) -> None:
            pass

    assert isinstance(from_callable(Callable()), CallableAgent)


def test_openai_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    task = lhtb.Task(name="t", instruction="i")
    factory = agent_factory("openai:my-model", task)
    made = factory()
    assert isinstance(made, OpenAIAgent)
    assert (made.model, made.name) == ("my-model", "openai:my-model")
    assert factory() is not made  # restart mode gets fresh agents
    with pytest.raises(AgentLoadError, match="names no model"):
        agent_factory("openai:", task)


@pytest.mark.docker
def test_cli_runs_openai_agent_against_base_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, docker_client: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "cli-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://unused.invalid/v1")  # restored afterwards
    task_dir = write_task(tmp_path / "task")
    out = tmp_path / "run"
    with serve(FakeOpenAI([bash("echo 42 > /app/answer.txt"), finish()])) as fake:
        result = CliRunner().invoke(
            main,
            ["run", str(task_dir), "--agent", "openai:fake-model", "--base-url", fake.base_url,
             "--out", str(out), "--quiet"],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert fake.calls == 2
    assert fake.headers[0]["authorization"] == "Bearer cli-key"
    trajectories = list(out.rglob("trajectory.json"))
    assert len(trajectories) == 1
    episode = json.loads((trajectories[0].parent / "episode.json").read_text())
    assert episode["outcome"] == "solved"
