"""Wrapping a third-party agent framework as an lhtb agent: the OpenAI Agents SDK.

The SDK (PyPI ``openai-agents``, imported as ``agents``) runs its own loop; the
adapter gives it tools that act on ``turn.sandbox``,
:func:`lhtb.agents.track_openai` records every model call's usage on
``turn.usage`` as it returns (so a turn cancelled at the deadline keeps what it
spent) and writes the episode's ATIF ``trajectory.json``; the conversation
carries over turns (``same_conversation``), and the SDK's tracing is disabled so
that nothing leaves the machine.

Works offline against any OpenAI-compatible chat-completions endpoint (vLLM,
SGLang, a LiteLLM proxy, or the scripted test server in lhtb's tests).

    pip install 'lhtb[agents-sdk]'          # or: pip install openai-agents
    python examples/openai_agents_sdk_adapter.py tasks/climate-extremes \\
        --model my-model --base-url http://localhost:8000/v1

See docs/adapters.md for the contract this follows.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import anyio
from openai import AsyncOpenAI

import lhtb
from agents import (
    Agent,
    MaxTurnsExceeded,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
)
from lhtb.agents import track_openai

INSTRUCTIONS = """\
You work alone in a Linux sandbox on the task the user gives. Use the tools to \
inspect, change and test. When the task is complete, answer with a short summary \
and no tool call: that stops your turn and a hidden verifier checks the sandbox. \
If it is not satisfied you will be told, and may continue."""
OUTPUT_LIMIT = 10_000


def _cut(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    half = OUTPUT_LIMIT // 2
    return f"{text[:half]}\n[... {len(text) - OUTPUT_LIMIT} characters omitted ...]\n{text[-half:]}"


class AgentsSDKAgent:
    """An lhtb agent that runs an OpenAI Agents SDK ``Agent`` each turn."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_turns: int = 200,
    ) -> None:
        self.model = model
        self.name = f"agents-sdk:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "no-key"
        self.max_turns = max_turns
        self.history: list[Any] = []  # carried over turns: same_conversation mode

    def _tools(self, turn: lhtb.Turn) -> list[Any]:
        sandbox = turn.sandbox

        @function_tool
        async def bash(command: str) -> str:
            """Run a shell command in the sandbox; returns exit code, stdout and stderr."""
            result = await sandbox.exec(
                ["bash", "-c", command], timeout=max(1.0, min(600.0, turn.remaining_sec))
            )
            timed_out = " (timed out)" if result.timed_out else ""
            return _cut(
                f"exit code {result.exit_code}{timed_out}\n"
                f"stdout:\n{result.stdout_text}\nstderr:\n{result.stderr_text}"
            )

        @function_tool
        async def write_file(path: str, content: str) -> str:
            """Create or replace a file (absolute path) in the sandbox."""
            await sandbox.write_file(path, content)
            return f"wrote {len(content.encode())} bytes to {path}"

        return [bash, write_file]

    async def run(self, turn: lhtb.Turn) -> None:
        """One turn: the SDK loop until the model answers without a tool call."""
        client = track_openai(
            AsyncOpenAI(base_url=self.base_url, api_key=self.api_key),
            turn,
            name="lhtb-agents-sdk",
            model=self.model,
        )
        agent = Agent(
            name="lhtb-sdk-agent",
            instructions=INSTRUCTIONS,
            tools=self._tools(turn),
            model=OpenAIChatCompletionsModel(model=self.model, openai_client=client),
        )
        if turn.feedback is None or not self.history:
            text = f"{turn.instruction}\n\nTime left: {turn.remaining_sec:.0f} seconds."
            if turn.feedback:
                text += f"\n\nAn earlier attempt was rejected: {turn.feedback}"
            self.history = [{"role": "user", "content": text}]
        else:
            self.history.append({"role": "user", "content": turn.feedback})
        try:
            result = await Runner.run(
                agent,
                self.history,
                max_turns=self.max_turns,
                run_config=RunConfig(tracing_disabled=True),
            )
            self.history = result.to_input_list()
            turn.log.info("sdk_agent_finished", summary=str(result.final_output)[:500])
        except MaxTurnsExceeded:
            turn.log.warning("sdk_agent_max_turns", max_turns=self.max_turns)
        finally:
            with anyio.CancelScope(shield=True):  # let cancellation through, but close first
                await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", help="a task directory")
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--budget", type=float, default=None)
    args = parser.parse_args()
    task = lhtb.load_task(args.task)
    agent = AgentsSDKAgent(args.model, base_url=args.base_url)
    episode = lhtb.run_episode_sync(task, agent, budget=args.budget)
    print(episode.outcome, episode.reward, episode.usage)


if __name__ == "__main__":
    main()
