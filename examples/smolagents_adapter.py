"""Wrapping a third-party agent framework as an lhtb agent: Hugging Face smolagents.

smolagents (PyPI ``smolagents``) runs a synchronous loop, so each turn runs it on
a worker thread; its tools call back into the event loop to act on
``turn.sandbox``. :func:`lhtb.agents.track_openai` instruments the model's
OpenAI client, so every call's usage and cost lands on ``turn.usage`` and in
the episode's ATIF ``trajectory.json``. The agent's memory carries over turns
(``same_conversation``): a rejected agent continues where it stopped.

At the deadline lhtb cancels the turn; the worker thread is abandoned and its
next sandbox command fails (the sandbox closes when the turn ends).

Works offline against any OpenAI-compatible chat-completions endpoint (vLLM,
SGLang, a LiteLLM proxy, or the scripted test server in lhtb's tests).

    pip install smolagents
    python examples/smolagents_adapter.py tasks/climate-extremes \\
        --model my-model --base-url http://localhost:8000/v1

See docs/adapters.md for the contract this follows.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from smolagents import OpenAIServerModel, Tool, ToolCallingAgent, tool

import lhtb
from lhtb.agents import track_openai

OUTPUT_LIMIT = 10_000
QUIET = -1  # smolagents' LogLevel.OFF: lhtb keeps the record


def _cut(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    half = OUTPUT_LIMIT // 2
    return f"{text[:half]}\n[... {len(text) - OUTPUT_LIMIT} characters omitted ...]\n{text[-half:]}"


def sandbox_tools(turn: lhtb.Turn) -> list[Tool]:
    """``bash`` and ``write_file`` on the turn's sandbox, callable from the worker thread."""
    sandbox = turn.sandbox
    loop = anyio.lowlevel.current_token()  # smolagents calls tools from threads of its own

    async def run_command(command: str) -> lhtb.ExecResult:
        limit = max(1.0, min(600.0, turn.remaining_sec))  # on the event loop's clock
        return await sandbox.exec(["bash", "-c", command], timeout=limit)

    @tool
    def bash(command: str) -> str:
        """Run a shell command in the sandbox; returns exit code, stdout and stderr.

        Args:
            command: the shell command (run with bash -c).
        """
        result = anyio.from_thread.run(run_command, command, token=loop)
        timed_out = " (timed out)" if result.timed_out else ""
        return _cut(
            f"exit code {result.exit_code}{timed_out}\n"
            f"stdout:\n{result.stdout_text}\nstderr:\n{result.stderr_text}"
        )

    @tool
    def write_file(path: str, content: str) -> str:
        """Create or replace a file in the sandbox.

        Args:
            path: the file's absolute path.
            content: the text to write.
        """
        anyio.from_thread.run(sandbox.write_file, path, content, token=loop)
        return f"wrote {len(content.encode())} bytes to {path}"

    return [bash, write_file]


class SmolagentsAgent:
    """An lhtb agent that runs a smolagents ``ToolCallingAgent`` each turn."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_steps: int = 100,
    ) -> None:
        self.model = model
        self.name = f"smolagents:{model}"
        self.llm = OpenAIServerModel(
            model,
            api_base=base_url or os.environ.get("OPENAI_BASE_URL"),
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "no-key",
        )
        self.max_steps = max_steps
        self.agent: ToolCallingAgent | None = None  # kept over turns: same_conversation mode

    async def run(self, turn: lhtb.Turn) -> None:
        """One turn: the smolagents loop until it calls ``final_answer``."""
        track_openai(self.llm.client, turn, name="lhtb-smolagents", model=self.model)
        resumed = turn.feedback is not None and self.agent is not None
        if not resumed:
            self.agent = ToolCallingAgent(
                tools=sandbox_tools(turn),
                model=self.llm,
                max_steps=self.max_steps,
                verbosity_level=QUIET,
            )
            prompt = f"{turn.instruction}\n\nTime left: {turn.remaining_sec:.0f} seconds."
        else:
            prompt = str(turn.feedback)
        agent = self.agent
        assert agent is not None
        agent.tools.update({t.name: t for t in sandbox_tools(turn)})  # this turn's sandbox

        def work() -> Any:
            return agent.run(prompt, reset=not resumed)

        answer = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        turn.log.info("smolagents_finished", summary=str(answer)[:500])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", help="a task directory")
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--budget", type=float, default=None)
    args = parser.parse_args()
    task = lhtb.load_task(args.task)
    agent = SmolagentsAgent(args.model, base_url=args.base_url)
    episode = lhtb.run_episode_sync(task, agent, budget=args.budget, progress="auto")
    print(episode.outcome, episode.reward, episode.usage)


if __name__ == "__main__":
    main()
