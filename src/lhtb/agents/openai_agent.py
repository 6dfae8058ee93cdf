"""The reference LLM agent: a tool-calling loop on any OpenAI-compatible chat endpoint.

One turn: the model sees a system prompt, the task instruction and the time
left; it calls ``bash`` (or ``terminal``), ``read_file``, ``write_file`` and
finally ``finish``, which ends the turn and triggers the hidden verifier.
When the verifier rejects the work and time is left, the harness runs the
agent again: the same object (``same_conversation``) gets the rejection as a
new user message in the same conversation; a fresh object (``restart``)
starts a new conversation that mentions the rejection.

Every model call's usage is recorded on ``turn.usage`` as soon as the
response arrives, so a turn cancelled at the deadline keeps what it spent (a
call still in flight when the deadline hits is not reported by the server and
cannot be counted). Every step is written to ``trajectory.json`` (ATIF) in the
episode directory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio

from lhtb.agents._context import ContextPolicy, compact, estimate_tokens
from lhtb.agents._model_calls import ModelPrice, RetryPolicy, call_usage, complete, price_of
from lhtb.agents._openai_tools import ToolBox, tool_schemas, truncate_middle
from lhtb.agents._prompts import NOT_RUN, RESET_NOTE, SHELL_HELP, SYSTEM_PROMPT, clock
from lhtb.agents._protocol import Turn
from lhtb.agents._trajectory import FILE_NAME, TrajectoryRecorder, atif_tool_call
from lhtb.errors import ContextLengthError, ModelAuthError

if TYPE_CHECKING:  # openai is imported when a turn starts: `import lhtb` stays fast
    import openai
    from openai.types.chat import ChatCompletion

__all__ = ["SYSTEM_PROMPT", "OpenAIAgent"]

VERSION = "1"
_PROTECTED = 2  # the system prompt and the task instruction are never compacted
_MAX_CONTEXT_RETRIES = 4
_NO_KEY = "no-key"


class OpenAIAgent:
    """A tool-calling agent on the OpenAI chat-completions API (or any compatible endpoint).

    Args:
        model: the model name sent to the endpoint.
        base_url: the endpoint (default: ``OPENAI_BASE_URL`` or OpenAI's).
        api_key: the key (default: ``OPENAI_API_KEY``; a placeholder is sent to a
            custom ``base_url`` when neither is set).
        prices: USD per million tokens, one :class:`ModelPrice` or a mapping by
            model name. Calls whose price is unknown are recorded with cost ``None``.
        use_terminal: drive an interactive terminal instead of one-shot ``bash``.
        max_output_chars: tool output beyond this is cut in the middle (stated).
        command_timeout_sec: default bound on one ``bash`` command.
        context: the context-window policy (see :mod:`lhtb.agents._context`).
        retry: retries and the per-call timeout.
        temperature: sent when set.
        request_options: extra keyword arguments for ``chat.completions.create``.
        max_steps: stop the turn after this many model calls (default: no limit).
        max_idle_replies: replies without a tool call in a row that end the turn.
        system_prompt: replaces :data:`SYSTEM_PROMPT` (``{shell}`` is filled in).
        trajectory: write ``trajectory.json`` into ``turn.episode_dir``.
        client: an ``openai.AsyncOpenAI`` to use (and not close) instead of one per turn.

    Raises:
        ModelAuthError: no API key for OpenAI's own endpoint.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        prices: Mapping[str, ModelPrice] | ModelPrice | None = None,
        use_terminal: bool = False,
        max_output_chars: int = 10_000,
        command_timeout_sec: float = 600.0,
        context: ContextPolicy | None = None,
        retry: RetryPolicy | None = None,
        temperature: float | None = None,
        request_options: Mapping[str, Any] | None = None,
        max_steps: int | None = None,
        max_idle_replies: int = 2,
        system_prompt: str | None = None,
        trajectory: bool = True,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        self.model = model
        self.name = f"openai:{model}"
        self.prices = prices
        self.use_terminal = use_terminal
        self.max_output_chars = max_output_chars
        self.command_timeout_sec = command_timeout_sec
        self.context = context or ContextPolicy()
        self.retry = retry or RetryPolicy()
        self.temperature = temperature
        self.request_options = dict(request_options or {})
        self.max_steps = max_steps
        self.max_idle_replies = max_idle_replies
        self.system_prompt = (system_prompt or SYSTEM_PROMPT).replace(
            "{shell}", SHELL_HELP[use_terminal]
        )
        self.write_trajectory = trajectory
        self.client = client
        self.api_key, self.base_url = self._credentials(base_url, api_key)
        self.messages: list[dict[str, Any]] = []
        self._recorder: TrajectoryRecorder | None = None
        self._last_prompt_tokens: int | None = None
        self._last_estimate = 0

    def _credentials(self, base_url: str | None, api_key: str | None) -> tuple[str, str | None]:
        key = api_key or os.environ.get("OPENAI_API_KEY")
        custom = base_url or os.environ.get("OPENAI_BASE_URL")
        if not key:
            if not custom and self.client is None:
                raise ModelAuthError(
                    "no API key for the OpenAI endpoint",
                    where=f"agent openai:{self.model}",
                    fix="Set OPENAI_API_KEY, pass api_key=, or point base_url= at your server",
                )
            key = _NO_KEY
        return key, custom

    # -- the turn ------------------------------------------------------------------------------

    async def run(self, turn: Turn) -> None:
        """Work on the task until the model calls ``finish`` or the turn is cancelled."""
        recorder = self._trajectory(turn)
        tools = ToolBox(
            sandbox=turn.sandbox,
            max_output_chars=self.max_output_chars,
            command_timeout_sec=self.command_timeout_sec,
            use_terminal=self.use_terminal,
        )
        import openai  # noqa: PLC0415 - heavy; only when the agent runs

        client = self.client or openai.AsyncOpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            max_retries=0,
            timeout=self.retry.call_timeout_sec,
        )
        self._open_turn(turn, recorder)
        try:
            await self._loop(turn, recorder, tools, client)
        except BaseException as error:
            if isinstance(error, anyio.get_cancelled_exc_class()):
                recorder.add("system", "The turn was cancelled (time budget spent).")
            raise
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(30):
                await tools.aclose()
                if client is not self.client:
                    await client.close()
            recorder.save()

    def _trajectory(self, turn: Turn) -> TrajectoryRecorder:
        path = None
        if self.write_trajectory and turn.episode_dir is not None:
            path = turn.episode_dir / FILE_NAME
        if self._recorder is None or self._recorder.path != path:
            self._recorder = TrajectoryRecorder(
                path, agent_name="lhtb-openai-agent", agent_version=VERSION, model_name=self.model
            )
        return self._recorder

    def _open_turn(self, turn: Turn, recorder: TrajectoryRecorder) -> None:
        extra = {"turn": turn.number}
        left = f"Time left: {clock(turn.remaining_sec)}."
        if self.messages and turn.feedback is not None:
            self._answer_pending_calls()
            text = f"{turn.feedback}\n\n{left} Continue working on the task."
            self.messages.append({"role": "user", "content": text})
            recorder.add("user", text, extra=extra)
            return
        self.messages = [{"role": "system", "content": self.system_prompt}]
        recorder.add("system", self.system_prompt, extra=extra)
        text = f"# Task\n\n{turn.instruction.strip()}\n\n{left}"
        if turn.feedback is not None:
            text += (
                "\n\nThis sandbox was worked on before you; that attempt stopped and was "
                f"rejected by the verifier: {turn.feedback}"
            )
        self.messages.append({"role": "user", "content": text})
        recorder.add("user", text, extra=extra)

    def _answer_pending_calls(self) -> None:
        """Give every tool call of the last assistant message a result (a turn cut short)."""
        for index in range(len(self.messages) - 1, -1, -1):
            if self.messages[index]["role"] == "assistant":
                answered = {m.get("tool_call_id") for m in self.messages[index + 1 :]}
                for call in self.messages[index].get("tool_calls", []):
                    if call["id"] not in answered:
                        self.messages.append(
                            {"role": "tool", "tool_call_id": call["id"], "content": NOT_RUN}
                        )
                return

    async def _loop(
        self,
        turn: Turn,
        recorder: TrajectoryRecorder,
        tools: ToolBox,
        client: openai.AsyncOpenAI,
    ) -> None:
        schemas = tool_schemas(
            use_terminal=self.use_terminal, max_output_chars=self.max_output_chars
        )
        idle = 0
        steps = 0
        while self.max_steps is None or steps < self.max_steps:
            steps += 1
            completion = await self._call(turn, recorder, schemas, client)
            if completion is None:
                return
            usage = call_usage(completion, price_of(self.prices, self.model, completion.model))
            turn.usage.record(
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cached_tokens=usage.cached_tokens,
                cost_usd=usage.cost_usd,
                model=completion.model or self.model,
            )
            if usage.reported:
                self._last_prompt_tokens = usage.prompt_tokens
            message = completion.choices[0].message if completion.choices else None
            content = (message.content or "") if message else ""
            calls = list(message.tool_calls or []) if message else []
            assistant: dict[str, Any] = {"role": "assistant", "content": content}
            function_calls = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.function.name,
                        "arguments": call.function.arguments,
                    },
                }
                for call in calls
                if call.type == "function"
            ]
            if function_calls:
                assistant["tool_calls"] = function_calls
            self.messages.append(assistant)
            step = recorder.add(
                "agent",
                content,
                tool_calls=[atif_tool_call(c) for c in assistant.get("tool_calls", [])] or None,
                metrics={
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "cached_tokens": usage.cached_tokens,
                    "cost_usd": usage.cost_usd,
                },
                reasoning_content=_reasoning(message),
            )
            if not assistant.get("tool_calls"):
                idle += 1
                if idle >= self.max_idle_replies:
                    turn.log.info("agent_stopped_without_finish", replies=idle)
                    return
                nudge = (
                    "You did not call a tool. Keep working with the tools, or call `finish` "
                    f"if the task is complete. Time left: {clock(turn.remaining_sec)}."
                )
                self.messages.append({"role": "user", "content": nudge})
                recorder.add("user", nudge)
                continue
            idle = 0
            if await self._run_tools(turn, recorder, tools, assistant["tool_calls"], step):
                return
        turn.log.info("agent_max_steps", steps=steps)

    async def _run_tools(
        self,
        turn: Turn,
        recorder: TrajectoryRecorder,
        tools: ToolBox,
        calls: list[dict[str, Any]],
        step: dict[str, Any],
    ) -> bool:
        """Run the calls in order; True when one of them was ``finish``."""
        results: list[tuple[str, str]] = []
        finish = False
        for index, call in enumerate(calls):
            function = call["function"]
            outcome = await tools.call(function["name"], function["arguments"], turn.remaining_sec)
            text = outcome.content
            if index == len(calls) - 1 and not outcome.finish:
                text += f"\n[time left: {clock(turn.remaining_sec)}]"
            results.append((call["id"], text))
            self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
            if outcome.error:
                turn.log.debug("tool_error", tool=function["name"], error=text[:300])
            finish = finish or outcome.finish
        recorder.observe(step, results)
        return finish

    async def _call(
        self,
        turn: Turn,
        recorder: TrajectoryRecorder,
        schemas: list[Any],
        client: openai.AsyncOpenAI,
    ) -> ChatCompletion | None:
        """One model call with the context policy applied; None when context cannot be saved."""
        policy = self.context
        target = int(policy.context_window * policy.target)
        if self._estimate() > policy.context_window * policy.compact_at:
            self._compact(turn, recorder, target, reason="near_limit")
        for attempt in range(_MAX_CONTEXT_RETRIES + 1):
            request: dict[str, Any] = {
                "model": self.model,
                "messages": self.messages,
                "tools": schemas,
                **self.request_options,
            }
            if self.temperature is not None:
                request["temperature"] = self.temperature
            sent = estimate_tokens(self.messages, self.context)
            try:
                completion = await complete(client, request, policy=self.retry, log=turn.log)
            except ContextLengthError:
                if attempt == _MAX_CONTEXT_RETRIES:
                    break
                if attempt == _MAX_CONTEXT_RETRIES - 1:
                    self._reset_context(turn, recorder)
                    continue
                target = max(1024, min(target, self._estimate()) // 2)
                self._compact(turn, recorder, target, reason="context_length_error")
                continue
            self._last_estimate = sent
            return completion
        turn.log.error("context_unrecoverable", messages=len(self.messages))
        recorder.add("system", "The conversation could not be fitted into the context window.")
        return None

    def _estimate(self) -> int:
        estimate = estimate_tokens(self.messages, self.context)
        if self._last_prompt_tokens is not None and self._last_estimate:
            # Calibrate against the server's own count for the prompt it saw last.
            ratio = self._last_prompt_tokens / max(1, self._last_estimate)
            estimate = int(estimate * max(1.0, ratio))
        return estimate

    def _reset_context(self, turn: Turn, recorder: TrajectoryRecorder) -> None:
        """Last resort: keep only the (cut) system prompt and instruction, and say so."""
        share = int(self.context.context_window * self.context.chars_per_token / 4)
        kept = [
            {**m, "content": truncate_middle(str(m.get("content") or ""), share)}
            for m in self.messages[:_PROTECTED]
        ]
        self.messages = [*kept, {"role": "user", "content": RESET_NOTE}]
        self._last_prompt_tokens = None
        turn.log.warning("context_reset", messages=len(self.messages))
        recorder.add("system", "Context reset: only the system prompt and the task were kept.")
        recorder.add("user", RESET_NOTE)

    def _compact(self, turn: Turn, recorder: TrajectoryRecorder, target: int, reason: str) -> None:
        before = estimate_tokens(self.messages, self.context)
        self.messages, stats = compact(
            self.messages, self.context, target_tokens=target, protected=_PROTECTED
        )
        after = estimate_tokens(self.messages, self.context)
        self._last_prompt_tokens = None
        turn.log.info("context_compacted", reason=reason, before=before, after=after, **stats)
        recorder.add(
            "system",
            f"Context compacted ({reason}): {stats['elided']} tool outputs elided, "
            f"{stats['dropped']} earlier steps dropped, {stats['cut']} messages cut; "
            f"about {before} -> {after} tokens.",
        )


def _reasoning(message: Any) -> str | None:
    value = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
    return value if isinstance(value, str) and value else None
