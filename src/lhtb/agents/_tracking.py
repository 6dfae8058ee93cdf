"""Recording what an OpenAI client does in a turn: usage and cost, and an ATIF trajectory.

:func:`track_openai` instruments a client (``openai.OpenAI`` or ``openai.AsyncOpenAI``,
or one a framework made) in place, so the framework keeps using the object it was
given. Every non-streaming ``chat.completions.create`` call then

* adds its tokens and cost to ``turn.usage`` as soon as it returns (a turn cancelled
  at the deadline keeps what it spent);
* adds an agent step (message, tool calls, metrics) to the episode's
  ``trajectory.json``, and the tool results the next request carries as that
  step's observation.

Call it again each turn with the new :class:`~lhtb.agents.Turn`: the client is
patched once, and later calls only switch where it records.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, TypeVar

from lhtb.agents._model_calls import ModelPrice, call_usage, price_of
from lhtb.agents._protocol import Turn
from lhtb.agents._trajectory import FILE_NAME, TrajectoryRecorder, atif_tool_call

__all__ = ["ModelCallLog", "track_openai"]

ClientT = TypeVar("ClientT")
_LOG_ATTRIBUTE = "_lhtb_call_log"
_ORIGINAL_ATTRIBUTE = "_lhtb_original_create"


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(_field(part, "text") or "") for part in content)
    return "" if content is None else str(content)


class ModelCallLog:
    """Where one turn's model calls are recorded: ``turn.usage`` and the trajectory.

    ``trajectory`` is the :class:`~lhtb.agents.TrajectoryRecorder` (it writes
    ``trajectory.json`` in the episode directory, resuming the file of earlier
    turns). The turn's instruction, or on a resumed turn the verifier's
    feedback, is recorded as a user step when the log is made.
    """

    def __init__(
        self,
        turn: Turn,
        *,
        name: str,
        model: str,
        version: str = "1",
        prices: Mapping[str, ModelPrice] | ModelPrice | None = None,
        trajectory: bool = True,
    ) -> None:
        self.usage = turn.usage
        self.model = model
        self.prices = prices
        path = turn.episode_dir / FILE_NAME if trajectory and turn.episode_dir else None
        self.trajectory = TrajectoryRecorder(
            path, agent_name=name, agent_version=version, model_name=model
        )
        opening = turn.feedback if turn.feedback is not None else turn.instruction
        self.trajectory.add("user", opening, extra={"turn": turn.number})
        self._waiting: dict[str, Any] | None = None  # the last step with unanswered tool calls

    def request(self, arguments: Mapping[str, Any]) -> None:
        """Attach the tool results a request carries to the step that called the tools."""
        if self._waiting is None:
            return
        ids = {call["tool_call_id"] for call in self._waiting.get("tool_calls", [])}
        results = [
            (str(_field(m, "tool_call_id")), _text(_field(m, "content")))
            for m in arguments.get("messages") or []
            if _field(m, "role") == "tool" and _field(m, "tool_call_id") in ids
        ]
        if results:
            self.trajectory.observe(self._waiting, results)
            self._waiting = None

    def response(self, completion: Any) -> None:
        """Record one completion's usage and its agent step."""
        usage = call_usage(completion, price_of(self.prices, self.model, completion.model))
        self.usage.record(
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            cost_usd=usage.cost_usd,
            model=completion.model or self.model,
        )
        message = completion.choices[0].message if completion.choices else None
        calls = [
            atif_tool_call(
                {
                    "id": c.id,
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
            )
            for c in (message.tool_calls or [] if message else [])
            if c.type == "function"
        ]
        step = self.trajectory.add(
            "agent",
            (message.content or "") if message else "",
            tool_calls=calls or None,
            metrics={
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "cached_tokens": usage.cached_tokens,
                "cost_usd": usage.cost_usd,
            },
        )
        self._waiting = step if calls else None


def track_openai(
    client: ClientT,
    turn: Turn,
    *,
    name: str,
    model: str,
    version: str = "1",
    prices: Mapping[str, ModelPrice] | ModelPrice | None = None,
    trajectory: bool = True,
) -> ClientT:
    """Make ``client`` record this turn's chat completions; returns the same client.

    ``name``/``model``/``version`` describe the agent in the trajectory;
    ``prices`` (one :class:`~lhtb.agents.ModelPrice`, or one per model name)
    turn tokens into ``cost_usd`` (unknown, not zero, without a price). Streamed
    calls (``stream=True``) pass through unrecorded.
    """
    completions: Any = client.chat.completions  # type: ignore[attr-defined]
    setattr(
        completions,
        _LOG_ATTRIBUTE,
        ModelCallLog(
            turn,
            name=name,
            model=model,
            version=version,
            prices=prices,
            trajectory=trajectory,
        ),
    )
    if getattr(completions, _ORIGINAL_ATTRIBUTE, None) is None:
        original = completions.create
        setattr(completions, _ORIGINAL_ATTRIBUTE, original)
        completions.create = _recording(completions, original)
    return client


def _recording(completions: Any, original: Any) -> Any:
    def create(*args: Any, **kwargs: Any) -> Any:
        log: ModelCallLog = getattr(completions, _LOG_ATTRIBUTE)
        log.request(kwargs)
        result = original(*args, **kwargs)
        if kwargs.get("stream"):
            return result
        if inspect.isawaitable(result):  # the async client

            async def finish() -> Any:
                completion = await result
                log.response(completion)
                return completion

            return finish()
        log.response(result)
        return result

    return create
