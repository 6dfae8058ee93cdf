"""Checking a trajectory against the shipped ATIF schema, plus what a schema cannot say."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lhtb.agents import atif_schema_path

AGENT_ONLY = {"model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"}
STEP_KEYS = AGENT_ONLY | {
    "step_id", "timestamp", "source", "message", "observation", "is_copied_context",
    "llm_call_count", "extra",
}  # fmt: skip


def check_trajectory(path: Path) -> dict[str, Any]:
    """Validate with jsonschema when installed, and always with stdlib invariants."""
    data: dict[str, Any] = json.loads(path.read_text())
    schema = json.loads(atif_schema_path().read_text())
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema is in the test extra
        jsonschema = None
    if jsonschema is not None:
        jsonschema.Draft202012Validator(
            schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        ).validate(data)
    assert set(data) <= {"schema_version", "session_id", "agent", "steps", "final_metrics"}
    assert data["schema_version"] == "ATIF-v1.7"
    assert set(data["agent"]) == {"name", "version", "model_name"}
    steps = data["steps"]
    assert [s["step_id"] for s in steps] == list(range(1, len(steps) + 1))
    for step in steps:
        assert set(step) <= STEP_KEYS, set(step) - STEP_KEYS
        assert step["source"] in {"system", "user", "agent"}
        if step["source"] != "agent":
            assert not (set(step) & AGENT_ONLY), step
        for call in step.get("tool_calls", []):
            assert set(call) == {"tool_call_id", "function_name", "arguments"}
            assert isinstance(call["arguments"], dict)
        if "observation" in step:
            ids = {c["tool_call_id"] for c in step.get("tool_calls", [])}
            for result in step["observation"]["results"]:
                assert set(result) == {"source_call_id", "content"}
                assert result["source_call_id"] in ids
    final = data["final_metrics"]
    assert final["total_steps"] == len(steps)
    agent_metrics = [s["metrics"] for s in steps if "metrics" in s]
    assert final["total_prompt_tokens"] == sum(m["prompt_tokens"] for m in agent_metrics)
    return data
