"""The reference agent in real Docker episodes, driven by a scripted OpenAI-compatible server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _agent_helpers import WRITE_42, write_task
from _atif_check import check_trajectory
from _fake_openai import Error, FakeOpenAI, Reply, bash, call, finish, serve

import lhtb
from lhtb.agents import ContextPolicy, ModelPrice, OpenAIAgent, RetryPolicy
from lhtb.episode import TurnEnd
from lhtb.sandbox.docker import DockerBackend

pytestmark = [pytest.mark.docker, pytest.mark.anyio]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def backend() -> DockerBackend:
    return DockerBackend()


@pytest.fixture
def run_id(docker_client: Any) -> Iterator[str]:
    value = f"test-agent-{uuid.uuid4().hex[:8]}"
    yield value
    label = {"label": f"lhtb.run={value}"}
    assert [c.name for c in docker_client.containers.list(all=True, filters=label)] == []


@pytest.fixture
def task(tmp_path: Path) -> lhtb.Task:
    return lhtb.load_task(write_task(tmp_path / "task"))


def agent(fake: FakeOpenAI, **kwargs: Any) -> OpenAIAgent:
    kwargs.setdefault("retry", RetryPolicy(initial_backoff_sec=0.01, max_backoff_sec=0.05))
    return OpenAIAgent("fake-model", base_url=fake.base_url, api_key="k", **kwargs)


async def test_solves_a_task(
    backend: DockerBackend, task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    price = ModelPrice(input=1.0, output=2.0)
    with serve(FakeOpenAI([bash(WRITE_42), bash("cat /app/answer.txt"), finish()])) as fake:
        episode = await lhtb.run_episode(
            task, agent(fake, prices=price), backend=backend, run_id=run_id,
            output_dir=tmp_path / "ep",
        )  # fmt: skip
    assert (str(episode.outcome), episode.reward, len(episode.passes)) == ("solved", 1.0, 1)
    assert episode.config.agent == "openai:fake-model"
    assert "exit code: 0\n[stdout]\n42\n" in fake.requests[2]["messages"][-1]["content"]
    assert episode.usage.calls == 3
    assert episode.usage.prompt_tokens == 300
    assert episode.usage.cost_usd == pytest.approx(3 * (100 * 1.0 + 20 * 2.0) / 1e6)
    data = check_trajectory(tmp_path / "ep" / "trajectory.json")
    assert data["final_metrics"]["total_prompt_tokens"] == 300


async def test_starter_task_solved_through_the_tools(
    backend: DockerBackend, tmp_path: Path, run_id: str
) -> None:
    """The scripted model uploads the reference solution with write_file and runs it."""
    task = lhtb.load_task(REPO / "tasks" / "climate-extremes")
    assert task.solution_dir is not None
    uploads = [
        call("write_file", {"path": f"/solution/{p.name}", "content": p.read_text()})
        for p in sorted(task.solution_dir.iterdir())
    ]
    script = [Reply(tool_calls=tuple(uploads)), bash("sh /solution/solve.sh"), finish()]
    with serve(FakeOpenAI(script)) as fake:
        episode = await lhtb.run_episode(
            task, agent(fake), backend=backend, run_id=run_id, output_dir=tmp_path / "ep",
            budget=300,
        )  # fmt: skip
    assert str(episode.outcome) == "solved", fake.requests[-1]["messages"][-1]["content"]
    check_trajectory(tmp_path / "ep" / "trajectory.json")


async def test_rejected_resumed_then_solves(
    backend: DockerBackend, task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    seen: list[str] = []

    def after_rejection(request: dict[str, Any]) -> Reply:
        seen.append(request["messages"][-1]["content"])
        return bash(WRITE_42)

    script = [bash("echo 41 > /app/answer.txt"), finish(), after_rejection, finish()]
    with serve(FakeOpenAI(script)) as fake:
        episode = await lhtb.run_episode(
            task, agent(fake), backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
        )
    assert (str(episode.outcome), episode.reward, len(episode.passes)) == ("solved", 1.0, 2)
    assert "did not pass the hidden verification" in seen[0]
    assert [t.end for t in episode.turns] == [TurnEnd.RETURNED, TurnEnd.RETURNED]
    # Same conversation: the second turn's first request extends the first turn's.
    first, resumed = fake.requests[1]["messages"], fake.requests[2]["messages"]
    assert resumed[: len(first)] == first
    data = check_trajectory(tmp_path / "ep" / "trajectory.json")
    assert [s["source"] for s in data["steps"]].count("user") == 2


async def test_cut_off_at_the_budget_keeps_usage(
    backend: DockerBackend, task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    busy = Reply(tool_calls=(call("bash", {"command": "sleep 0.2; echo working"}),), delay=0.1)
    with serve(FakeOpenAI([], fallback=busy)) as fake:
        episode = await lhtb.run_episode(
            task, agent(fake), backend=backend, run_id=run_id, output_dir=tmp_path / "ep",
            budget=4,
        )  # fmt: skip
    assert str(episode.outcome) == "unsolved"
    assert [t.end for t in episode.turns] == [TurnEnd.DEADLINE]
    assert episode.usage.calls >= 3
    assert episode.turns[0].usage.prompt_tokens == 100 * episode.turns[0].usage.calls
    assert episode.usage.calls in {fake.calls, fake.calls - 1}  # the last call may be in flight
    data = check_trajectory(tmp_path / "ep" / "trajectory.json")
    assert "cancelled" in data["steps"][-1]["message"]
    assert data["final_metrics"]["total_prompt_tokens"] == episode.usage.prompt_tokens


async def test_survives_a_context_length_error(
    backend: DockerBackend, task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    script = [
        bash("seq 1 20000"),
        bash("seq 1 20000"),
        Error(400, "maximum context length exceeded", code="context_length_exceeded"),
        bash(WRITE_42),
        finish(),
    ]
    policy = ContextPolicy(keep_recent_outputs=0)
    with serve(FakeOpenAI(script)) as fake:
        episode = await lhtb.run_episode(
            task, agent(fake, context=policy), backend=backend, run_id=run_id,
            output_dir=tmp_path / "ep",
        )  # fmt: skip
    assert str(episode.outcome) == "solved"
    retried = [m for m in fake.requests[3]["messages"] if m["role"] == "tool"]
    assert retried[0]["content"].startswith("[output elided")
    check_trajectory(tmp_path / "ep" / "trajectory.json")


async def test_malformed_tool_arguments_do_not_crash_it(
    backend: DockerBackend, task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    script = [
        Reply(tool_calls=(call("bash", '{"command": "echo 42 >'),)),
        Reply(tool_calls=(call("bash", {"command": 42}),)),
        bash(WRITE_42),
        finish(),
    ]
    with serve(FakeOpenAI(script)) as fake:
        episode = await lhtb.run_episode(
            task, agent(fake), backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
        )
    assert str(episode.outcome) == "solved"
    assert episode.error is None
    observations = [m["content"] for m in fake.requests[2]["messages"] if m["role"] == "tool"]
    assert "not valid JSON" in observations[0]
    assert "'command' must be a string" in observations[1]
    check_trajectory(tmp_path / "ep" / "trajectory.json")
