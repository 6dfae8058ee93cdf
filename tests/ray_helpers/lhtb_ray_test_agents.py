"""Agents the Ray tests load by spec on the workers (this directory is on their PYTHONPATH)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import anyio

import lhtb
from lhtb.agents import OracleAgent

SECRET_ENV = "LHTB_FAKE_API_KEY"


class SlowKeyedOracle:
    """The oracle, after a pause, and only when the fake API key reached this worker.

    It drops a marker ``<node>-<id>`` into ``$LHTB_TEST_MARKS`` when it starts,
    so a test knows which node runs an episode.
    """

    name = "keyed"

    def __init__(self, task: lhtb.Task) -> None:
        self.inner = OracleAgent(task)

    async def run(self, turn: lhtb.Turn) -> None:
        marks = os.environ.get("LHTB_TEST_MARKS")
        if marks:
            node = os.environ.get("LHTB_TEST_NODE", "driver")
            (Path(marks) / f"{node}-{uuid.uuid4().hex[:8]}").touch()
        await anyio.sleep(float(os.environ.get("LHTB_TEST_AGENT_SLEEP", "6")))
        if os.environ.get(SECRET_ENV):
            await self.inner.run(turn)
