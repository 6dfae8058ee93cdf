"""The reference agent against a real local HTTP server (no Docker: a fake sandbox)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from _agent_helpers import FakeSandbox, make_turn
from _atif_check import check_trajectory
from _fake_openai import Error, FakeOpenAI, Reply, bash, call, finish, serve

from lhtb.agents import (
    ContextPolicy,
    ModelAuthError,
    ModelCallError,
    ModelPrice,
    OpenAIAgent,
    RetryPolicy,
    UsageRecorder,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def fake_sandbox() -> FakeSandbox:
    return FakeSandbox()


FAST_RETRY = RetryPolicy(max_attempts=4, initial_backoff_sec=0.01, max_backoff_sec=0.05)


def agent_for(fake: FakeOpenAI, **kwargs: Any) -> OpenAIAgent:
    kwargs.setdefault("retry", FAST_RETRY)
    return OpenAIAgent("fake-model", base_url=fake.base_url, api_key="test-key", **kwargs)


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_tool_loop_usage_cost_and_trajectory(
    fake_sandbox: FakeSandbox, tmp_path: Path
) -> None:
    script = [
        Reply(content="Looking.", tool_calls=(call("bash", {"command": "ls /app"}),),
              usage=(1000, 50, 400)),
        Reply(tool_calls=(call("write_file", {"path": "/app/answer.txt", "content": "42\n"}),
                          call("read_file", {"path": "/app/answer.txt"})), usage=(1200, 30, 1000)),
        Reply(tool_calls=(call("finish", {"summary": "wrote it"}),), usage=(1300, 10, 0)),
    ]  # fmt: skip
    usage = UsageRecorder()
    price = ModelPrice(input=2.0, output=8.0, cached_input=0.5)
    with serve(FakeOpenAI(script)) as fake:
        agent = agent_for(fake, prices={"fake-model": price})
        await agent.run(make_turn(fake_sandbox, episode_dir=tmp_path, usage=usage))
    assert fake.calls == 3
    assert fake.headers[0]["authorization"] == "Bearer test-key"
    assert fake_sandbox.files["/app/answer.txt"] == b"42\n"
    assert fake_sandbox.commands[0][-1] == "ls /app"
    # The model saw the results of both calls, the budget, and its system prompt.
    second = fake.requests[2]
    assert second["messages"][0]["role"] == "system"
    assert "hidden verifier" in second["messages"][0]["content"]
    results = tool_messages(second)
    assert results[1].startswith("wrote 3 bytes to /app/answer.txt")
    assert results[2].startswith("42\n")
    assert "[time left:" in results[2]
    assert {t["function"]["name"] for t in second["tools"]} == {
        "bash", "read_file", "write_file", "finish",
    }  # fmt: skip
    total = usage.total
    assert (total.calls, total.prompt_tokens, total.completion_tokens, total.cached_tokens) == (
        3, 3500, 90, 1400,
    )  # fmt: skip
    expected = (600 * 2 + 400 * 0.5 + 50 * 8) + (200 * 2 + 1000 * 0.5 + 30 * 8) + (1300 * 2 + 80)
    assert total.cost_usd == pytest.approx(expected / 1e6)
    assert usage.models == {"fake-model"}
    data = check_trajectory(tmp_path / "trajectory.json")
    assert [s["source"] for s in data["steps"]] == ["system", "user", "agent", "agent", "agent"]
    assert data["steps"][2]["message"] == "Looking."
    assert data["steps"][2]["tool_calls"][0]["arguments"] == {"command": "ls /app"}
    assert data["steps"][3]["observation"]["results"][0]["content"].startswith("wrote 3 bytes")
    assert data["final_metrics"]["total_cost_usd"] == pytest.approx(expected / 1e6)


async def test_unknown_price_and_missing_usage_are_unknown_cost(fake_sandbox: FakeSandbox) -> None:
    usage = UsageRecorder()
    with serve(
        FakeOpenAI([bash("true"), Reply(usage=None, tool_calls=finish().tool_calls)])
    ) as fake:
        await agent_for(fake, prices={"other-model": ModelPrice(1, 1)}).run(
            make_turn(fake_sandbox, usage=usage)
        )
    assert usage.total.calls == 2
    assert usage.total.prompt_tokens == 100
    assert usage.total.cost_usd is None


async def test_malformed_tool_arguments_become_error_observations(
    fake_sandbox: FakeSandbox, tmp_path: Path
) -> None:
    script = [
        Reply(tool_calls=(call("bash", '{"command": "ls'),)),  # truncated JSON
        Reply(tool_calls=(call("bash", {"cmd": "ls"}),)),  # missing field
        Reply(tool_calls=(call("bash", "[1, 2]"),)),  # not an object
        Reply(tool_calls=(call("write_file", {"path": "relative.txt", "content": "x"}),)),
        Reply(tool_calls=(call("launch_rockets", {}),)),  # unknown tool
        Reply(tool_calls=(call("bash", {"command": "echo ok", "timeout": "soon"}),)),
        Reply(tool_calls=(call("read_file", {"path": "/missing"}),)),
        finish(),
    ]
    with serve(FakeOpenAI(script)) as fake:
        await agent_for(fake).run(make_turn(fake_sandbox, episode_dir=tmp_path))
    assert fake.calls == 8
    observations = tool_messages(fake.requests[-1])
    assert "not valid JSON" in observations[0]
    assert "Nothing was run" in observations[0]
    assert "'command' must be a string" in observations[1]
    assert "must be a JSON object" in observations[2]
    assert "paths must be absolute" in observations[3]
    assert "no tool named 'launch_rockets'" in observations[4]
    assert "'timeout' must be a number" in observations[5]
    assert "cannot read /missing" in observations[6]
    assert fake_sandbox.commands == []  # nothing malformed was run
    data = check_trajectory(tmp_path / "trajectory.json")
    assert data["steps"][2]["tool_calls"][0]["arguments"] == {"_raw": '{"command": "ls'}


async def test_rate_limit_honours_retry_after_and_5xx_retries(fake_sandbox: FakeSandbox) -> None:
    script = [
        Error(429, "slow down", headers={"Retry-After": "0.4"}),
        Error(503, "overloaded"),
        Error(500, "boom", headers={"retry-after-ms": "50"}),
        finish(),
    ]
    usage = UsageRecorder()
    with serve(FakeOpenAI(script)) as fake:
        await agent_for(fake).run(make_turn(fake_sandbox, usage=usage))
    assert fake.calls == 4
    assert fake.times[1] - fake.times[0] >= 0.4
    assert fake.times[3] - fake.times[2] >= 0.05
    assert usage.total.calls == 1  # failed calls spent nothing


async def test_auth_error_fails_fast(fake_sandbox: FakeSandbox) -> None:
    with (
        serve(FakeOpenAI([Error(401, "bad key", code="invalid_api_key")])) as fake,
        pytest.raises(ModelAuthError, match="refused the credentials"),
    ):
        await agent_for(fake).run(make_turn(fake_sandbox))
    assert fake.calls == 1


async def test_retries_are_bounded(fake_sandbox: FakeSandbox) -> None:
    with (
        serve(FakeOpenAI([], fallback=Error(502, "bad gateway"))) as fake,
        pytest.raises(ModelCallError, match="gave up after 4 attempts"),
    ):
        await agent_for(fake).run(make_turn(fake_sandbox))
    assert fake.calls == 4


async def test_slow_response_hits_the_call_timeout_and_is_retried(
    fake_sandbox: FakeSandbox,
) -> None:
    retry = RetryPolicy(max_attempts=3, initial_backoff_sec=0.01, call_timeout_sec=0.5)
    with serve(FakeOpenAI([Reply(delay=60.0), finish()])) as fake:
        started = time.monotonic()
        await agent_for(fake, retry=retry).run(make_turn(fake_sandbox))
    assert fake.calls == 2
    assert time.monotonic() - started < 30  # the first reply would take 60 s


async def test_no_key_for_openai_itself_is_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY"):
        OpenAIAgent("gpt-x")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert OpenAIAgent("gpt-x").api_key == "from-env"


async def test_context_length_error_compacts_and_continues(
    fake_sandbox: FakeSandbox, tmp_path: Path
) -> None:
    big = "x" * 20_000
    fake_sandbox.files["/big"] = big.encode()
    script: list[Any] = [Reply(tool_calls=(call("read_file", {"path": "/big"}),)) for _ in range(6)]
    script += [
        Error(400, "This model's maximum context length is 8192 tokens",
              code="context_length_exceeded"),
        finish(),
    ]  # fmt: skip
    policy = ContextPolicy(context_window=1_000_000, keep_recent_outputs=1)
    with serve(FakeOpenAI(script)) as fake:
        agent = agent_for(fake, context=policy, max_output_chars=20_000)
        await agent.run(make_turn(fake_sandbox, episode_dir=tmp_path))
    assert fake.calls == 8
    before, after = tool_messages(fake.requests[6]), tool_messages(fake.requests[7])
    assert all(len(text) > 20_000 for text in before)
    assert sum(len(t) for t in after) < sum(len(t) for t in before) / 2
    assert after[0].startswith("[output elided to fit the context window")
    data = check_trajectory(tmp_path / "trajectory.json")
    assert any("Context compacted (context_length_error)" in s["message"] for s in data["steps"])


async def test_compaction_before_the_limit_drops_old_rounds(fake_sandbox: FakeSandbox) -> None:
    script: list[Any] = [
        Reply(content="y" * 3000, tool_calls=(call("bash", {"command": "echo hi"}),))
        for _ in range(12)
    ]
    policy = ContextPolicy(context_window=4096, compact_at=0.8, target=0.5)
    with serve(FakeOpenAI([*script, finish()])) as fake:
        await agent_for(fake, context=policy).run(make_turn(fake_sandbox))
    last = fake.requests[-1]["messages"]
    assert last[0]["role"] == "system"
    assert "Write 42" in last[1]["content"]
    assert any("earlier steps were removed" in str(m["content"]) for m in last)
    size = sum(len(json.dumps(m)) for m in last)
    assert size < 4096 * 3.5
    # Tool messages still follow their assistant message (a valid conversation).
    for index, message in enumerate(last):
        if message["role"] == "tool":
            assert last[index - 1]["role"] in {"assistant", "tool"}


async def test_unrecoverable_context_ends_the_turn_without_crashing(
    fake_sandbox: FakeSandbox,
) -> None:
    error = Error(400, "prompt is too long", code="context_length_exceeded")
    with serve(FakeOpenAI([], fallback=error)) as fake:
        await agent_for(fake).run(make_turn(fake_sandbox))
    assert fake.calls == 5
    reset = fake.requests[4]["messages"]
    assert [m["role"] for m in reset] == ["system", "user", "user"]
    assert "conversation was reset" in reset[-1]["content"]


async def test_text_replies_are_nudged_then_end_the_turn(fake_sandbox: FakeSandbox) -> None:
    with serve(FakeOpenAI([Reply(content="I think I'm done."), Reply(content="Done.")])) as fake:
        await agent_for(fake).run(make_turn(fake_sandbox))
    assert fake.calls == 2
    assert "did not call a tool" in fake.requests[1]["messages"][-1]["content"]


async def test_same_object_continues_the_conversation_with_the_feedback(
    fake_sandbox: FakeSandbox, tmp_path: Path
) -> None:
    with serve(FakeOpenAI([bash("true"), finish(), bash("echo again"), finish()])) as fake:
        agent = agent_for(fake)
        await agent.run(make_turn(fake_sandbox, episode_dir=tmp_path))
        await agent.run(
            make_turn(fake_sandbox, number=2, feedback="REJECTED.", episode_dir=tmp_path)
        )
    resumed = fake.requests[2]["messages"]
    assert resumed[: len(fake.requests[1]["messages"])] == fake.requests[1]["messages"]
    assert resumed[-1]["role"] == "user"
    assert resumed[-1]["content"].startswith("REJECTED.")
    data = check_trajectory(tmp_path / "trajectory.json")
    assert [s["source"] for s in data["steps"]].count("system") == 1


async def test_fresh_object_restarts_and_continues_the_trajectory(
    fake_sandbox: FakeSandbox, tmp_path: Path
) -> None:
    with serve(FakeOpenAI([finish(), finish()])) as fake:
        await agent_for(fake).run(make_turn(fake_sandbox, episode_dir=tmp_path))
        await agent_for(fake).run(
            make_turn(fake_sandbox, number=2, feedback="REJECTED.", episode_dir=tmp_path)
        )
    restarted = fake.requests[1]["messages"]
    assert [m["role"] for m in restarted] == ["system", "user"]
    assert "REJECTED." in restarted[1]["content"]
    data = check_trajectory(tmp_path / "trajectory.json")
    assert [s["source"] for s in data["steps"]] == [
        "system", "user", "agent", "system", "user", "agent",
    ]  # fmt: skip


async def test_cancellation_keeps_usage_and_trajectory(
    fake_sandbox: FakeSandbox, tmp_path: Path
) -> None:
    usage = UsageRecorder()
    with serve(FakeOpenAI([], fallback=Reply(
        tool_calls=(call("bash", {"command": "sleep 1"}),), delay=0.2
    ))) as fake:  # fmt: skip
        with anyio.move_on_after(1.0):
            await agent_for(fake).run(make_turn(fake_sandbox, usage=usage, episode_dir=tmp_path))
    assert usage.total.calls >= 1
    assert fake.calls - usage.total.calls in {0, 1}  # one call may have been in flight
    assert usage.total.prompt_tokens == 100 * usage.total.calls
    data = check_trajectory(tmp_path / "trajectory.json")
    assert data["steps"][-1] == {**data["steps"][-1], "source": "system"}
    assert "cancelled" in data["steps"][-1]["message"]
    assert data["final_metrics"]["total_prompt_tokens"] == usage.total.prompt_tokens


async def test_a_turn_cut_mid_tool_call_resumes_with_a_valid_conversation(
    tmp_path: Path,
) -> None:
    class SlowSandbox(FakeSandbox):
        async def exec(self, command: Any, **kwargs: Any) -> Any:
            await anyio.sleep(30)
            return await super().exec(command, **kwargs)

    sandbox = SlowSandbox()
    with serve(FakeOpenAI([bash("sleep 30"), finish()])) as fake:
        agent = agent_for(fake)
        with anyio.move_on_after(1.0):
            await agent.run(make_turn(sandbox, episode_dir=tmp_path))
        await agent.run(make_turn(sandbox, number=2, feedback="REJECTED.", episode_dir=tmp_path))
    resumed = fake.requests[1]["messages"]
    assert [m["role"] for m in resumed] == ["system", "user", "assistant", "tool", "user"]
    assert resumed[3]["tool_call_id"] == resumed[2]["tool_calls"][0]["id"]
    assert resumed[3]["content"].startswith("[not run")
    check_trajectory(tmp_path / "trajectory.json")
