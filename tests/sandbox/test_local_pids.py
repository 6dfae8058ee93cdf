"""A sandbox whose agent holds every pid slot: the verifier's export still runs, the
agent gets no slot beyond its limit, and the init survives a failed fork.

These fail (not skip) under CI=true when the host cannot run local sandboxes.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import tarfile
from pathlib import Path

import anyio
import pytest
from test_local import local_backend, make_task, run_id, sh

from lhtb.errors import ExecError
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.local import LocalBackend, LocalSandbox, LocalSettings

__all__ = ["local_backend", "run_id"]

pytestmark = pytest.mark.anyio

PIDS = 32
FILL = """
import os, signal, sys, time
n = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        signal.pause()
        os._exit(0)
    n += 1
with open(sys.argv[1] + ".part", "w") as out:
    out.write(str(n))
os.rename(sys.argv[1] + ".part", sys.argv[1])
signal.pause()
"""
"""Forks until the kernel refuses (the budget is full), then writes how many it holds (the
marker appears whole: written aside, then renamed, since the test polls for it)."""


async def _fill(box: LocalSandbox, marker: str) -> int:
    """Start a filler in ``box`` and wait for its marker: every slot is held."""
    await box.write_file("/opt/fill.py", FILL)
    await box.exec(f"nohup python3 /opt/fill.py {marker} >/dev/null 2>&1 &", timeout=60)
    with anyio.fail_after(120):
        while not (Path(f"/proc/{box.init_pid}/root") / marker.lstrip("/")).exists():
            await anyio.sleep(0.05)
    return int((Path(f"/proc/{box.init_pid}/root") / marker.lstrip("/")).read_text())


async def test_a_full_pid_budget_still_exports_the_agents_files(
    local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> None:
    del local_backend  # the host check
    backend = LocalBackend(LocalSettings(pids_limit=PIDS))
    task = make_task(tmp_path / "task")
    box = await backend.start(
        SandboxSpec(image=await backend.prepare(task), task=task, run_id=run_id)
    )
    try:
        await sh(box, "echo kept > /app/answer.txt")
        held = await _fill(box, "/tmp/full")
        assert 0 < held < PIDS  # the filler ran, and stopped at the agent's limit
        with pytest.raises(ExecError, match="pid slot"):  # no slot beyond the limit either
            await box.exec("true", timeout=60)
        await box.freeze_for_capture()
        archive = await box.export(["/app/answer.txt"])
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            member = tar.extractfile("app/answer.txt")
            assert member is not None
            assert member.read() == b"kept\n"
        await box.thaw()
    finally:
        with anyio.CancelScope(shield=True):
            await box.destroy()


async def test_the_init_survives_a_failed_fork(
    local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> None:
    """The agent's budget and the control reserve full: a command cannot start (a typed
    error), and the init still answers and serves once a slot is free."""
    del local_backend
    backend = LocalBackend(LocalSettings(pids_limit=PIDS))
    task = make_task(tmp_path / "task")
    box = await backend.start(
        SandboxSpec(image=await backend.prepare(task), task=task, run_id=run_id)
    )
    try:
        await _fill(box, "/tmp/agent-full")
        await box.freeze()  # commands now start in the control cgroup, with the reserve
        await _fill(box, "/tmp/all-full")
        with pytest.raises(ExecError, match="cannot fork"):
            await box.exec("true", timeout=60)
        await box.ping()
        for proc in Path("/proc").glob("[0-9]*"):  # free the reserve from the host
            with contextlib.suppress(OSError):
                if b"/tmp/all-full" in (proc / "cmdline").read_bytes():
                    os.kill(int(proc.name), signal.SIGKILL)
        with anyio.fail_after(60):
            while True:
                with contextlib.suppress(ExecError):
                    assert await sh(box, "echo served") == "served"
                    break
                await anyio.sleep(0.05)
    finally:
        with anyio.CancelScope(shield=True):
            await box.destroy()
