"""The report's view of an agent's ``trajectory.json`` (ATIF steps), within a budget."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

MAX_TEXT = 4000
"""Characters shown of one message, tool call or observation."""


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    return text if len(text) <= limit else f"{text[:limit]}\n... ({len(text) - limit} more chars)"


def pre(text: str) -> str:
    """``text`` (clipped) as preformatted, escaped markup."""
    return f"<pre>{escape(clip(text))}</pre>"


def _message_text(message: Any) -> str:
    if isinstance(message, str):
        return message
    if isinstance(message, list):
        return "\n".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in message
        )
    return json.dumps(message, indent=1)


def _step_html(step: dict[str, Any]) -> str:
    source = str(step.get("source", "?"))
    meta = " · ".join(
        str(v) for v in (step.get("step_id"), source, step.get("timestamp")) if v is not None
    )
    parts = [f'<div class="step {escape(source)}"><div class="meta">{escape(meta)}</div>']
    text = _message_text(step.get("message", ""))
    if text:
        parts.append(pre(text))
    for call in step.get("tool_calls") or []:
        if isinstance(call, dict):
            args = json.dumps(call.get("arguments", {}), indent=1)
            parts.append(pre(f"-> {call.get('function_name', '?')} {args}"))
    observation = step.get("observation") or {}
    for result in observation.get("results", []) if isinstance(observation, dict) else []:
        if isinstance(result, dict) and result.get("content") is not None:
            parts.append(pre(_message_text(result["content"])))
    parts.append("</div>")
    return "".join(parts)


def trajectory(directory: Path, budget_chars: int) -> str:
    """The agent's ``trajectory.json``: steps until ``budget_chars`` of markup are used."""
    path = directory / "trajectory.json"
    if not path.is_file():
        return ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return (
            f'<h4>trajectory</h4><p class="note">unreadable trajectory.json: {escape(str(exc))}</p>'
        )
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(steps, list):
        return f"<h4>trajectory</h4>{pre(json.dumps(data, indent=1))}"
    parts = [f'<h4>trajectory ({len(steps)} steps)</h4><div class="trajectory">']
    used = shown = 0
    for step in steps:
        if used >= budget_chars:
            break
        if isinstance(step, dict):
            html = _step_html(step)
            parts.append(html)
            used += len(html)
        shown += 1
    if shown < len(steps):
        parts.append(
            f'<p class="note">{len(steps) - shown} more steps in {escape(str(path))} '
            "(the report shows the first ones only)</p>"
        )
    parts.append("</div>")
    return "".join(parts)
