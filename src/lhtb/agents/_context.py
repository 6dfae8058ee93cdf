"""Keeping a long conversation inside the model's context window.

The policy, applied before a call when the estimated prompt passes
``compact_at`` of the window, and again (with a target halved each time) after
the server answers with a context-length error:

1. **Elide old tool outputs.** From the oldest on, the content of tool results
   (all but the ``keep_recent_outputs`` newest) is replaced by a one-line digest:
   how long it was, its first and last lines. The tool call itself stays, so
   the model still sees what it did.
2. **Drop old rounds.** If that is not enough, whole rounds (an assistant
   message with its tool results) are removed from the oldest on, keeping the
   system prompt, the task instruction and the newest round; a user note says
   how many steps were removed.
3. **Cut long messages.** As a last resort, every message longer than its
   share of the target is cut in the middle.

When the server still refuses the prompt after three shrinks, the agent keeps
only the system prompt and the instruction plus a note that the conversation
was reset (the sandbox keeps the work); if even that fails, the turn ends.

Token counts are estimated as characters / ``chars_per_token``, calibrated by
the prompt size the server reported on the last call. Nothing here raises.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from lhtb.agents._openai_tools import truncate_middle

__all__ = ["ContextPolicy", "compact", "estimate_tokens"]

Message = dict[str, Any]
_DROPPED_NOTE = (
    "[{n} earlier steps were removed to fit the context window; the sandbox keeps their effects.]"
)


@attrs.frozen
class ContextPolicy:
    """When and how the conversation is shrunk (see the module docs)."""

    context_window: int = attrs.field(default=128_000, validator=attrs.validators.ge(1024))
    """The model's context window in tokens."""
    compact_at: float = 0.8
    """Shrink before a call once the prompt is estimated above this share of the window."""
    target: float = 0.5
    """Shrink down to this share of the window."""
    keep_recent_outputs: int = 4
    """Tool results never elided in step 1."""
    chars_per_token: float = 3.5


def _size(message: Message) -> int:
    size = len(str(message.get("content") or ""))
    for call in message.get("tool_calls") or ():
        size += len(json.dumps(call))
    return size + 8


def estimate_tokens(messages: list[Message], policy: ContextPolicy) -> int:
    """A conservative token estimate for ``messages``."""
    return int(sum(_size(m) for m in messages) / policy.chars_per_token)


def _digest(content: str) -> str:
    lines = [line for line in content.splitlines() if line.strip()]
    first = lines[0][:200] if lines else ""
    last = lines[-1][:200] if len(lines) > 1 else ""
    text = f"[output elided to fit the context window: it was {len(content)} characters"
    if first:
        text += f"; first line: {first!r}"
    if last:
        text += f"; last line: {last!r}"
    return text + "]"


def _rounds(messages: list[Message], start: int) -> list[tuple[int, int]]:
    """(begin, end) index ranges of rounds: an assistant message and what follows it."""
    spans: list[tuple[int, int]] = []
    begin = None
    for index in range(start, len(messages)):
        if messages[index].get("role") == "assistant":
            if begin is not None:
                spans.append((begin, index))
            begin = index
    if begin is not None:
        spans.append((begin, len(messages)))
    return spans


def compact(
    messages: list[Message], policy: ContextPolicy, *, target_tokens: int, protected: int
) -> tuple[list[Message], dict[str, int]]:
    """Shrink ``messages`` towards ``target_tokens``; the first ``protected`` stay intact.

    Returns the new list and counts of what was done (for logs and the trajectory).
    """
    result = [dict(m) for m in messages]
    stats = {"elided": 0, "dropped": 0, "cut": 0}

    def over() -> bool:
        return estimate_tokens(result, policy) > target_tokens

    tool_indices = [i for i, m in enumerate(result) if m.get("role") == "tool" and i >= protected]
    elidable = tool_indices[: max(0, len(tool_indices) - policy.keep_recent_outputs)]
    for index in elidable:
        if not over():
            break
        content = str(result[index].get("content") or "")
        if content.startswith("[output elided"):
            continue
        digest = _digest(content)
        if len(digest) < len(content):
            result[index]["content"] = digest
            stats["elided"] += 1

    if over():
        spans = _rounds(result, protected)
        removable = spans[:-1]
        drop_until = protected
        for _, end in removable:
            drop_until = end
            stats["dropped"] += 1
            trial = result[:protected] + result[end:]
            if estimate_tokens(trial, policy) <= target_tokens:
                break
        if stats["dropped"]:
            note = {"role": "user", "content": _DROPPED_NOTE.format(n=stats["dropped"])}
            result = [*result[:protected], note, *result[drop_until:]]

    if over():
        share = max(500, int(target_tokens * policy.chars_per_token / max(1, len(result))))
        for message in result:
            text = message.get("content")
            if isinstance(text, str) and len(text) > share:
                message["content"] = truncate_middle(text, share)
                stats["cut"] += 1
    return result, stats
