"""Helpers for agent tests: a fake sandbox and a Turn maker."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import structlog

from lhtb.agents import Turn, UsageRecorder
from lhtb.sandbox.base import Command, ExecResult, Terminal


class FakeSandbox:
    """Records commands; files live in a dict. Enough for the agent's own logic."""

    def __init__(self) -> None:
        self.commands: list[Any] = []
        self.files: dict[str, bytes] = {}

    async def exec(self, command: Command, **kwargs: Any) -> ExecResult:
        self.commands.append(command)
        text = command[-1] if not isinstance(command, str) else command
        return ExecResult(0, stdout=f"ran: {text}\n".encode())

    async def read_file(self, path: str) -> bytes:
        if path not in self.files:
            raise FileNotFoundError(2, "No such file", path)
        return self.files[path]

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        self.files[path] = data.encode() if isinstance(data, str) else data

    async def terminal(
        self,
        command: Command | None = None,
        *,
        rows: int = 24,
        cols: int = 80,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> Terminal:
        raise NotImplementedError


def make_turn(
    sandbox: Any,
    *,
    budget: float = 60.0,
    number: int = 1,
    feedback: str | None = None,
    episode_dir: Path | None = None,
    usage: UsageRecorder | None = None,
) -> Turn:
    return Turn(
        instruction="Write 42 to /app/answer.txt.",
        sandbox=sandbox,
        number=number,
        deadline=anyio.current_time() + budget,
        usage=usage or UsageRecorder(),
        log=structlog.get_logger("test"),
        feedback=feedback,
        task_name="t",
        episode_dir=episode_dir,
    )


TEST_SH = """#!/bin/sh
if [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; then score=1; else score=0; fi
printf '{"subtasks": [{"name": "answer", "score": %s}]}' "$score" > /logs/verifier/scorecard.json
"""
WRITE_42 = "echo 42 > /app/answer.txt"


def write_task(root: Path, *, isolation: str = "shared") -> Path:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app\nWORKDIR /app\n"
    )
    (root / "tests" / "test.sh").write_text(TEST_SH)
    (root / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            schema_version = "1.1"

            [agent]
            timeout_sec = 120
            continue_until_timeout = true

            [verifier]
            isolation = "{isolation}"
            timeout_sec = 60
            max_passes = 4
            """
        )
    )
    return root
