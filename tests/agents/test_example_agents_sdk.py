"""The OpenAI Agents SDK example adapter, in a real episode against the scripted server."""

from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _agent_helpers import WRITE_42, write_task
from _fake_openai import FakeOpenAI, Reply, bash, serve

import lhtb
from lhtb.sandbox.docker import DockerBackend

pytest.importorskip("agents", reason="the example needs openai-agents (the agents-sdk extra)")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openai_agents_sdk_adapter.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openai_agents_sdk_adapter", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.docker
@pytest.mark.anyio
async def test_sdk_agent_is_rejected_resumed_and_solves(docker_client: Any, tmp_path: Path) -> None:
    example = load_example()
    task = lhtb.load_task(write_task(tmp_path / "task"))
    script = [
        bash("echo 41 > /app/answer.txt"),
        Reply(content="Done (wrongly)."),
        bash(WRITE_42),
        Reply(content="Fixed."),
    ]
    with serve(FakeOpenAI(script)) as fake:
        agent = example.AgentsSDKAgent("fake-model", base_url=fake.base_url, api_key="k")
        episode = await lhtb.run_episode(
            task, agent, backend=DockerBackend(docker_client), output_dir=tmp_path / "ep",
            run_id=f"test-sdk-{uuid.uuid4().hex[:8]}",
        )  # fmt: skip
    assert (str(episode.outcome), len(episode.passes)) == ("solved", 2)
    assert episode.config.agent == "agents-sdk:fake-model"
    assert fake.calls == 4
    resumed = fake.requests[2]["messages"]
    assert any("did not pass the hidden verification" in str(m.get("content")) for m in resumed)
    assert any("Done (wrongly)." in str(m.get("content")) for m in resumed)  # same conversation
    assert episode.usage.calls == 4
    assert episode.usage.prompt_tokens == 400
    assert episode.usage.cost_usd is None
