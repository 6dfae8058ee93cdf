"""The session's request handling, on the in-memory backend (no Docker, no root)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

import lhtb
from lhtb.session import Session
from lhtb.session.protocol import Request
from lhtb.testing import FakeBackend, fake_task
from turns import first_turn

pytestmark = pytest.mark.anyio


async def test_a_sandbox_request_before_the_first_turn_waits_for_it(tmp_path: Path) -> None:
    """``lhtb serve`` prints its socket before the sandbox is made; a client that writes at
    once is answered when the first turn opens, not refused with ``not_in_turn``."""
    task = fake_task(tmp_path / "task")
    session = Session(task.name, task.instruction)
    answers: list[dict[str, Any]] = []
    answered = anyio.Event()

    async def write() -> None:
        request = Request("write_file", args={"path": "/app/answer.txt", "content": "42"})
        answers.append(await session.handle(request))
        answered.set()

    async with lhtb.open_sandbox(task, backend=FakeBackend()) as sandbox:
        async with anyio.create_task_group() as group:
            group.start_soon(write)
            await anyio.wait_all_tasks_blocked()
            assert (session.turn, session.turns, answers) == (None, 0, [])  # no turn yet: it waits
            turn = first_turn(task, sandbox, budget_sec=600)
            group.start_soon(session.serve_turn, turn)
            with anyio.fail_after(60):
                await answered.wait()
            session.stop()
        assert await sandbox.read_file("/app/answer.txt") == b"42"
