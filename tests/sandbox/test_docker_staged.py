"""A Docker snapshot staged in a capture's pause: the host copies the frozen container's
changes (no Engine call), the commit comes after the thaw, and a killed run's staged
copies go with ``cleanup``."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from test_docker import RUN_ID, backend, env_dir, sandbox, task

from lhtb.errors import ArchiveError
from lhtb.sandbox.docker import DockerBackend, DockerSandbox, DockerSettings
from lhtb.sandbox.docker import _staged as _docker_staged

__all__ = ["backend", "env_dir", "sandbox", "task"]

pytestmark = [pytest.mark.docker, pytest.mark.anyio]


def _staged(run_id: str) -> list[Path]:
    return list((Path(tempfile.gettempdir()) / "lhtb-staged" / run_id).glob("*"))


async def test_the_pause_copies_on_the_host_and_the_commit_comes_after_the_thaw(
    sandbox: DockerSandbox, backend: DockerBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    await sandbox.write_file("/app/state.txt", "frozen")
    calls: list[str] = []
    api = backend.client.api
    for name in ("_get", "_post", "_put", "_delete"):  # every Engine request
        real = getattr(api, name)

        def spy(url: str, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            calls.append(url.split("?", maxsplit=1)[0].rsplit("/", 1)[-1])
            return _real(url, *args, **kwargs)

        monkeypatch.setattr(api, name, spy)
    await sandbox.freeze_for_capture()
    try:
        frozen_calls = len(calls)
        make = await sandbox.stage_snapshot()
        during = calls[frozen_calls:]
        assert len(_staged(RUN_ID)) == 1
    finally:
        await sandbox.thaw()
    assert during == []  # the host copied the changes: nothing asked of the Engine
    await sandbox.write_file("/app/state.txt", "later")
    spec = await make()
    assert calls.count("commit") == 1
    assert _staged(RUN_ID) == []
    copy = await backend.start(spec)
    try:
        assert await copy.read_file("/app/state.txt") == b"frozen"
    finally:
        with anyio.CancelScope(shield=True):
            await copy.destroy()
            await backend.release(spec)


async def test_changes_over_the_cap_are_refused_while_frozen(
    sandbox: DockerSandbox, backend: DockerBackend
) -> None:
    await sandbox.exec("head -c 4096 /dev/zero > /app/big")
    backend.settings = DockerSettings(max_snapshot_bytes=1024)
    await sandbox.freeze_for_capture()
    try:
        with pytest.raises(ArchiveError, match="snapshot cap"):
            await sandbox.stage_snapshot()
    finally:
        await sandbox.thaw()
    assert _staged(RUN_ID) == []


async def test_cleanup_removes_a_killed_runs_staged_copies(
    sandbox: DockerSandbox, backend: DockerBackend
) -> None:
    run_id = f"{RUN_ID}-staged"
    await sandbox.freeze_for_capture()
    try:
        assert sandbox._layer is not None, "this daemon is local: the host sees the upper dir"
        take = _docker_staged.StagedChanges.take
        take(sandbox._layer, run_id=run_id, limit=1 << 30, where="test")
        take(sandbox._layer, run_id=run_id, limit=1 << 30, where="test")
    finally:
        await sandbox.thaw()
    assert len(_staged(run_id)) == 2
    assert await backend.cleanup(run_id) == 2
    assert _staged(run_id) == []
    assert not (Path(tempfile.gettempdir()) / "lhtb-staged" / run_id).exists()
