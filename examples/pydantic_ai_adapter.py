"""Wrapping a third-party agent framework as an lhtb agent: Pydantic AI.

The Pydantic AI agent (PyPI ``pydantic-ai-slim[openai]``) gets two tools that act
on ``turn.sandbox``; :func:`lhtb.agents.track_openai` records every model call's
usage and cost on ``turn.usage`` and writes the episode's ATIF
``trajectory.json``; the message history carries over turns
(``same_conversation``), so a rejected agent continues where it stopped.

Works offline against any OpenAI-compatible chat-completions endpoint (vLLM,
SGLang, a LiteLLM proxy, or the scripted test server in lhtb's tests).

    pip install 'pydantic-ai-slim[openai]'
    python examples/pydantic_ai_adapter.py tasks/climate-extremes \\
        --model my-model --base-url http://localhost:8000/v1

See docs/adapters.md for the contract this follows.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import anyio
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

import lhtb
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


class PydanticAIAgent:
    """An lhtb agent that runs a Pydantic AI ``Agent`` each turn."""

    def __init__(
        self, model: str, *, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        self.model = model
        self.name = f"pydantic-ai:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "no-key"
        self.history: list[Any] = []  # carried over turns: same_conversation mode

    def _agent(self, turn: lhtb.Turn, client: AsyncOpenAI) -> Agent[None, str]:
        model = OpenAIChatModel(self.model, provider=OpenAIProvider(openai_client=client))
        agent: Agent[None, str] = Agent(model, instructions=INSTRUCTIONS, retries=3)
        sandbox = turn.sandbox

        @agent.tool_plain
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

        @agent.tool_plain
        async def write_file(path: str, content: str) -> str:
            """Create or replace a file (absolute path) in the sandbox."""
            await sandbox.write_file(path, content)
            return f"wrote {len(content.encode())} bytes to {path}"

        return agent

    async def run(self, turn: lhtb.Turn) -> None:
        """One turn: the Pydantic AI loop until the model answers without a tool call."""
        client = track_openai(
            AsyncOpenAI(base_url=self.base_url, api_key=self.api_key),
            turn,
            name="lhtb-pydantic-ai",
            model=self.model,
        )
        if turn.feedback is None or not self.history:
            prompt = f"{turn.instruction}\n\nTime left: {turn.remaining_sec:.0f} seconds."
            self.history = []
        else:
            prompt = turn.feedback
        try:
            result = await self._agent(turn, client).run(prompt, message_history=self.history)
            self.history = result.all_messages()
            turn.log.info("pydantic_ai_finished", summary=str(result.output)[:500])
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
    agent = PydanticAIAgent(args.model, base_url=args.base_url)
    episode = lhtb.run_episode_sync(task, agent, budget=args.budget, progress="auto")
    print(episode.outcome, episode.reward, episode.usage)


if __name__ == "__main__":
    main()
