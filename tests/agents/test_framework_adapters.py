"""The example framework adapters in real episodes on the local backend, against the scripted
chat-completions server: each is rejected, resumed in the same conversation and solves the
task, with its usage recorded on the episode and a valid ATIF trajectory written."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _agent_helpers import WRITE_42, write_task
from _atif_check import check_trajectory
from _fake_openai import FakeOpenAI, Reply, bash, call, serve

import lhtb
from lhtb.sandbox.local import LocalBackend

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def text_stop(summary: str) -> Reply:
    return Reply(content=summary)


def final_answer(summary: str) -> Reply:
    return Reply(tool_calls=(call("final_answer", {"answer": summary}),))


# adapter module, the framework it needs, the agent class, how the model ends its turn, and
# whether the framework sends tool results as OpenAI `tool` messages (smolagents sends them as
# user text, so the trajectory has the calls but no observations)
ADAPTERS: dict[str, tuple[str, str, str, Callable[[str], Reply], bool]] = {
    "openai-agents": ("openai_agents_sdk_adapter", "agents", "AgentsSDKAgent", text_stop, True),
    "pydantic-ai": ("pydantic_ai_adapter", "pydantic_ai", "PydanticAIAgent", text_stop, True),
    "smolagents": ("smolagents_adapter", "smolagents", "SmolagentsAgent", final_answer, False),
}


@pytest.mark.parametrize("framework", sorted(ADAPTERS))
async def test_adapter_is_rejected_resumed_and_solves(
    framework: str, local_backend: LocalBackend, tmp_path: Path
) -> None:
    module_name, needs, class_name, stop, tool_messages = ADAPTERS[framework]
    pytest.importorskip(needs, reason=f"the {framework} example needs its framework installed")
    example = load_example(module_name)
    task = lhtb.load_task(write_task(tmp_path / "task"))
    script = [
        bash("echo 41 > /app/answer.txt"),
        stop("Done (wrongly)."),
        bash(WRITE_42),
        stop("Fixed."),
    ]
    with serve(FakeOpenAI(script)) as fake:
        agent: Any = getattr(example, class_name)("fake-model", base_url=fake.base_url, api_key="k")
        episode = await lhtb.run_episode(
            task, agent, backend=local_backend, output_dir=tmp_path / "ep"
        )
    assert (str(episode.outcome), len(episode.passes)) == ("solved", 2), episode.error
    assert episode.config.model == "fake-model"  # the agent's `model` attribute
    assert fake.calls == 4
    resumed = json.dumps(fake.requests[2]["messages"])
    assert "did not pass the hidden verification" in resumed
    assert "Done (wrongly)." in resumed  # the same conversation
    assert (episode.usage.calls, episode.usage.prompt_tokens) == (4, 400)
    assert episode.usage.cost_usd is None  # no price given: unknown, not zero
    trajectory = check_trajectory(tmp_path / "ep" / "trajectory.json")
    agent_steps = [s for s in trajectory["steps"] if s["source"] == "agent"]
    assert len(agent_steps) == 4
    first_call = agent_steps[0]
    assert first_call["tool_calls"][0]["arguments"] == {"command": "echo 41 > /app/answer.txt"}
    if tool_messages:
        assert "exit code 0" in first_call["observation"]["results"][0]["content"]
    assert trajectory["final_metrics"]["total_prompt_tokens"] == 400


async def test_track_openai_prices_calls_and_switches_turns(tmp_path: Path) -> None:
    from _agent_helpers import FakeSandbox, make_turn
    from openai import OpenAI

    from lhtb.agents import ModelPrice, track_openai

    price = ModelPrice(input=2.0, output=10.0)
    with serve(FakeOpenAI([Reply(content="one"), Reply(content="two")])) as fake:
        client = OpenAI(base_url=fake.base_url, api_key="k")
        first = make_turn(FakeSandbox(), episode_dir=tmp_path)
        assert track_openai(client, first, name="a", model="fake-model", prices=price) is client
        client.chat.completions.create(model="fake-model", messages=[])
        second = make_turn(FakeSandbox(), number=2, feedback="rejected", episode_dir=tmp_path)
        track_openai(client, second, name="a", model="fake-model", prices=price)
        client.chat.completions.create(model="fake-model", messages=[])
    for turn in (first, second):  # each call went to its own turn's usage, priced
        assert turn.usage.total.calls == 1
        assert turn.usage.total.cost_usd == pytest.approx((100 * 2.0 + 20 * 10.0) / 1e6)
    steps = check_trajectory(tmp_path / "trajectory.json")["steps"]
    assert [(s["source"], s["message"]) for s in steps] == [
        ("user", "Write 42 to /app/answer.txt."),
        ("agent", "one"),
        ("user", "rejected"),
        ("agent", "two"),
    ]
