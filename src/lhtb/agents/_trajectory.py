"""Recording an agent's steps as an ATIF trajectory (``trajectory.json``).

ATIF (the Agent Trajectory Interchange Format Harbor's viewers read) is a
JSON object ``{schema_version, session_id, agent, steps, final_metrics}``.
Steps are numbered 1..n; ``source`` is ``system``, ``user`` or ``agent``; the
agent-only fields (``model_name``, ``reasoning_content``, ``tool_calls``,
``metrics``) appear on agent steps only. The observation of an agent step's
tool calls is stored on that step. ``atif.schema.json`` next to this module
describes exactly what is written; no other keys are.

The file is rewritten atomically after every step, so a crash or a
cancellation leaves the trajectory up to the last step. When an agent of the
same name finds a trajectory from an earlier turn of the episode (restart
mode makes a fresh agent per turn), it continues that file.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_VERSION", "TrajectoryRecorder", "atif_tool_call", "schema_path"]

SCHEMA_VERSION = "ATIF-v1.7"
FILE_NAME = "trajectory.json"


def schema_path() -> Path:
    """The JSON Schema of the trajectories lhtb writes."""
    return Path(__file__).with_name("atif.schema.json")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TrajectoryRecorder:
    """Collects ATIF steps and writes them to ``path`` (nothing is written when it is None)."""

    def __init__(
        self,
        path: Path | None,
        *,
        agent_name: str,
        agent_version: str,
        model_name: str,
    ) -> None:
        self.path = path
        self.agent = {"name": agent_name, "version": agent_version, "model_name": model_name}
        self.session_id = uuid.uuid4().hex
        self.steps: list[dict[str, Any]] = []
        if path is not None and path.is_file():
            self._resume(path)

    def _resume(self, path: Path) -> None:
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            data = json.loads(path.read_text())
            if (
                data.get("schema_version") == SCHEMA_VERSION
                and data["agent"]["name"] == self.agent["name"]
                and isinstance(data.get("steps"), list)
            ):
                self.steps = list(data["steps"])
                self.session_id = str(data.get("session_id") or self.session_id)

    def add(
        self,
        source: str,
        message: str,
        *,
        tool_calls: list[dict[str, Any]] | None = None,
        metrics: dict[str, Any] | None = None,
        reasoning_content: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Append a step, write the file, and return the step (to attach an observation)."""
        step: dict[str, Any] = {
            "step_id": len(self.steps) + 1,
            "timestamp": _now(),
            "source": source,
            "message": message,
        }
        if source == "agent":
            step["model_name"] = self.agent["model_name"]
            if reasoning_content:
                step["reasoning_content"] = reasoning_content
            if tool_calls:
                step["tool_calls"] = tool_calls
            if metrics is not None:
                step["metrics"] = metrics
        if extra:
            step["extra"] = extra
        self.steps.append(step)
        self.save()
        return step

    def observe(self, step: dict[str, Any], results: list[tuple[str, str]]) -> None:
        """Attach tool results ``(call id, content)`` to ``step`` and write the file."""
        step["observation"] = {
            "results": [{"source_call_id": call_id, "content": text} for call_id, text in results]
        }
        self.save()

    def document(self) -> dict[str, Any]:
        """The trajectory as a JSON-ready object."""
        metrics = [s["metrics"] for s in self.steps if "metrics" in s]
        costs: list[float | None] = [m.get("cost_usd") for m in metrics]
        known = [c for c in costs if c is not None]
        return {
            "schema_version": SCHEMA_VERSION,
            "session_id": self.session_id,
            "agent": dict(self.agent),
            "steps": self.steps,
            "final_metrics": {
                "total_prompt_tokens": sum(m.get("prompt_tokens", 0) for m in metrics),
                "total_completion_tokens": sum(m.get("completion_tokens", 0) for m in metrics),
                "total_cached_tokens": sum(m.get("cached_tokens", 0) for m in metrics),
                "total_cost_usd": None if len(known) < len(costs) else round(sum(known), 8),
                "total_steps": len(self.steps),
            },
        }

    def save(self) -> None:
        """Write the file atomically (temp file, then rename)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(self.document(), indent=1, ensure_ascii=False))
        temporary.replace(self.path)


def atif_tool_call(call: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI tool call as an ATIF one; unparsable arguments are kept under ``_raw``."""
    raw = call["function"]["arguments"]
    try:
        arguments = json.loads(raw or "{}")
    except json.JSONDecodeError:
        arguments = None
    if not isinstance(arguments, dict):
        arguments = {"_raw": raw}
    return {
        "tool_call_id": call["id"],
        "function_name": call["function"]["name"],
        "arguments": arguments,
    }
