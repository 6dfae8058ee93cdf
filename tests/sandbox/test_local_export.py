"""A local sandbox's export, read by the host through the init's root (a capture's fast
path), holds what ``tar`` inside the sandbox holds; a tree too deep for the host walk
is left to that ``tar``.

These fail (not skip) under CI=true when the host cannot run local sandboxes.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import anyio
import pytest
from test_local import local_backend, make_task, run_id

from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.host._export import Owners
from lhtb.sandbox.local import LocalBackend, LocalSandbox
from lhtb.sandbox.local import _sandbox as _local_sandbox

__all__ = ["local_backend", "run_id"]

pytestmark = pytest.mark.anyio

Member = tuple[str, str, bytes, int, int, int]


@pytest.fixture
async def sandbox(
    local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> AsyncIterator[LocalSandbox]:
    task = make_task(tmp_path / "task")
    image = await local_backend.prepare(task)
    started = await local_backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    try:
        yield started
    finally:
        with anyio.CancelScope(shield=True):
            await started.destroy()


def _members(archive: bytes) -> dict[str, Member]:
    """Each member's kind, link target, data, mode and owners."""
    found = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for info in tar:
            data = tar.extractfile(info).read() if info.isreg() else b""  # type: ignore[union-attr]
            found[info.name.rstrip("/")] = (
                info.type.decode(),
                info.linkname,
                data,
                info.mode,
                info.uid,
                info.gid,
            )
    return found


class _Counted:
    """Wraps ``export_on_host``, recording what it was asked and whether it did it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, refuse: bool = False) -> None:
        self.calls: list[tuple[list[str], bool]] = []
        self._real = _local_sandbox.export_on_host
        self._refuse = refuse
        monkeypatch.setattr(_local_sandbox, "export_on_host", self)

    async def __call__(self, init_pid: int, paths: Sequence[str], **kwargs: object) -> bytes | None:
        found = None if self._refuse else await self._real(init_pid, paths, **kwargs)  # type: ignore[arg-type]
        self.calls.append((list(paths), found is not None))
        return found


async def test_the_host_export_holds_what_tar_in_the_sandbox_holds(
    sandbox: LocalSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await sandbox.exec(
        "mkdir -p /app/h/sub /app/h/skip /app/h/wide && echo a > /app/h/a "
        "&& chmod 751 /app/h/sub && echo b > /app/h/sub/b && chown agent: /app/h/sub/b "
        "&& ln -s /etc/passwd /app/h/pw && ln -s .. /app/h/sub/up && echo s > /app/h/skip/x "
        "&& mkfifo /app/h/fifo && for i in $(seq 300); do mkdir /app/h/wide/$i; done",
        timeout=120,
    )
    assert made.ok, made.stderr_text
    await sandbox.freeze()
    try:
        host_side = _Counted(monkeypatch)
        host = await sandbox.export(["/app/h"], exclude=["skip"])
        assert host_side.calls == [(["/app/h"], True)]  # 300 directories, done by the host
        _Counted(monkeypatch, refuse=True)
        in_sandbox = await sandbox.export(["/app/h"], exclude=["skip"])
    finally:
        await sandbox.thaw()
    assert _members(host) == _members(in_sandbox)
    assert _members(host)["app/h/pw"][:2] == ("2", "/etc/passwd")
    assert _members(host)["app/h/sub"][3] == 0o751
    assert _members(host)["app/h/sub/b"][4] != 0  # the agent's, as the sandbox sees it
    assert _members(host)["app/h/fifo"][0] == "6"  # recorded, for the checks to refuse
    assert "app/h/skip/x" not in _members(host)


async def test_a_tree_too_deep_for_the_host_is_exported_by_tar(
    sandbox: LocalSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every level keeps a directory open: its file "z" is still pending below "a".
    deep = "/app/deep/" + "/".join(["a"] * 300)
    script = "p=/app/deep; for i in $(seq 300); do mkdir -p $p/a && echo > $p/z; p=$p/a; done"
    made = await sandbox.exec(f'{script} && echo x > "$p/leaf"', timeout=120)
    assert made.ok, made.stderr_text
    host_side = _Counted(monkeypatch)
    archive = await sandbox.export(["/app/deep"])
    assert host_side.calls == [(["/app/deep"], False)]  # refused by the host walk
    assert _members(archive)[f"{deep.lstrip('/')}/leaf"][2] == b"x\n"


def test_a_rootless_sandbox_sees_only_its_root_mapped() -> None:
    owned = tarfile.TarInfo("x")
    owned.uid, owned.gid = 1000, 1000
    other = tarfile.TarInfo("y")
    other.uid, other.gid = 0, 5
    for info in (owned, other):
        Owners((1000, 1000)).apply(info)
    assert (owned.uid, owned.gid, other.uid, other.gid) == (0, 0, 65534, 65534)
    kept = tarfile.TarInfo("z")
    kept.uid, kept.gid = 7, 8
    Owners().apply(kept)
    assert (kept.uid, kept.gid) == (7, 8)
