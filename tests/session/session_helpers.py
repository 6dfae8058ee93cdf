"""A tiny served task and a way to drive a session with a blocking scripted client."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio

import lhtb
from lhtb.sandbox.base import SandboxBackend
from lhtb.session import Session, serve_session

T = TypeVar("T")

TEST_SH = """#!/bin/sh
if [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; then score=1; else score=0; fi
printf '{"subtasks": [{"name": "answer", "score": %s, "visibility": "hidden"}]}' "$score" \\
  > /logs/verifier/scorecard.json
"""


def write_task(root: Path, *, timeout_sec: int = 120) -> lhtb.Task:
    """Write 42 to /app/answer.txt; continue until timeout with binary feedback."""
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
            artifacts = ["/app"]
            [agent]
            timeout_sec = {timeout_sec}
            continue_until_timeout = true

            [verifier]
            timeout_sec = 60
            max_passes = 5
            """
        )
    )
    return lhtb.load_task(root)


async def drive(
    task: lhtb.Task,
    backend: SandboxBackend,
    out: Path,
    client: Callable[[Path], T],
    **episode_args: Any,
) -> tuple[lhtb.Episode, T]:
    """Serve ``task`` and run ``client(socket_path)`` on a thread; the record and its result."""
    ready = anyio.Event()
    where: list[Path] = []
    episodes: list[lhtb.Episode] = []

    def on_ready(path: Path, session: Session) -> None:
        where.append(path)
        ready.set()

    async def serve() -> None:
        episode = await serve_session(
            task,
            agent_name="scripted",
            on_ready=on_ready,
            backend=backend,
            output_dir=out,
            **episode_args,
        )
        episodes.append(episode)

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        await ready.wait()
        assert where[0].stat().st_mode & 0o777 == 0o600
        result = await anyio.to_thread.run_sync(client, where[0])
    return episodes[0], result
