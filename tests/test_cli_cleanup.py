"""`lhtb cleanup` with no backend named sweeps every built-in backend usable here."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

import lhtb
from lhtb.cli import main
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.local import LocalBackend

pytestmark = pytest.mark.anyio


def tiny_task(root: Path) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\n")
    (root / "tests" / "test.sh").write_text("#!/bin/sh\n")
    (root / "instruction.md").write_text("Nothing.\n")
    (root / "task.toml").write_text("[agent]\ntimeout_sec = 60\n")
    return lhtb.load_task(root)


async def test_cleanup_defaults_to_every_usable_backend(tmp_path: Path) -> None:
    backend = LocalBackend()
    task = tiny_task(tmp_path / "task")
    run_id = f"cli-cleanup-{uuid.uuid4().hex[:8]}"
    sandbox = await backend.start(
        SandboxSpec(image=await backend.prepare(task), task=task, run_id=run_id)
    )
    assert (await sandbox.exec("true")).ok  # a leftover, as after a kill -9 of the harness

    invoke = CliRunner().invoke
    result = await anyio.to_thread.run_sync(lambda: invoke(main, ["cleanup", "--run-id", run_id]))

    assert result.exit_code == 0, result.output
    assert "local: removed 1 resource(s)" in result.output
    with pytest.raises(lhtb.errors.SandboxError):
        await sandbox.exec("true")
