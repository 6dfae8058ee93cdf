"""The sandbox backend conformance suite: one contract, every backend.

A backend passes when these tests pass against it. Third-party backends run
them from their own test module by importing everything and providing the
``conformance_backend`` fixture::

    # tests/test_my_backend_conformance.py
    import pytest
    from lhtb.sandbox.conformance import *  # noqa: F403 - the tests and fixtures

    @pytest.fixture
    def conformance_backend():
        return MyBackend()

The suite needs pytest and anyio's pytest plugin (installed with anyio). It
builds a tiny task (``FROM debian:bookworm-slim``, a user ``agent``, workdir
``/app``) through the backend's own :meth:`~lhtb.sandbox.base.SandboxBackend.prepare`
and covers: exec semantics, exit codes, stdin, env, cwd, users, timeouts
(process group killed), big and binary output with truncation flags, files,
freeze (a counter really stops; exec still works while frozen), export/import
round trip and excludes, the tar-safety rules, snapshot (also staged in a
capture's pause), network isolation, the
task's tests directory never reaching the sandbox, and cleanup by run id.
"""

from __future__ import annotations

import io
import tarfile
import uuid
from collections.abc import AsyncIterator

import anyio
import pytest

from lhtb.errors import ArchiveError, ExecError, SandboxError, SandboxUnavailableError
from lhtb.sandbox.base import ManagedSandbox, Sandbox, SandboxBackend, SandboxSpec
from lhtb.task._model import AgentConfig, EnvironmentConfig, Task

__all__ = [
    "CONFORMANCE_DOCKERFILE",
    "CONFORMANCE_PYTHON_DOCKERFILE",
    "anyio_backend",
    "conformance_backend",
    "conformance_dockerfile",
    "conformance_run_id",
    "conformance_sandbox",
    "conformance_task",
    "test_agent_view_is_restricted",
    "test_binary_output_and_files",
    "test_cleanup_removes_run",
    "test_cwd",
    "test_env",
    "test_exec_argv_and_shell",
    "test_exec_works_while_frozen_and_freeze_stops_processes",
    "test_exit_codes",
    "test_export_import_round_trip",
    "test_files",
    "test_import_refuses_unsafe_archives",
    "test_large_output_and_truncation",
    "test_no_network_without_internet",
    "test_snapshot_starts_identical_sandbox",
    "test_staged_snapshot_holds_the_state_at_the_freeze",
    "test_stdin",
    "test_tests_directory_stays_out",
    "test_timeout_kills_process_group",
    "test_users",
]

CONFORMANCE_DOCKERFILE = (
    "FROM debian:bookworm-slim\nRUN useradd -m agent && mkdir -p /app\nWORKDIR /app\n"
)
CONFORMANCE_PYTHON_DOCKERFILE = (
    "FROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends "
    "python3 procps ca-certificates && rm -rf /var/lib/apt/lists/*\n"
    "RUN useradd -m agent && mkdir -p /app\nWORKDIR /app\n"
)
"""The same sandbox with ``python3``: backends with an exec fast path that needs it use this."""
SECRET = "lhtb-conformance-hidden-test-marker"
_COUNTER = "i=0; while :; do i=$((i+1)); echo $i > /tmp/counter; sleep 0.05; done"


@pytest.fixture
def anyio_backend() -> str:
    """The suite runs on asyncio."""
    return "asyncio"


@pytest.fixture
def conformance_backend() -> SandboxBackend:
    """Override this fixture with the backend under test."""
    raise pytest.UsageError(
        "define a `conformance_backend` fixture returning the SandboxBackend under test"
    )


@pytest.fixture
def conformance_dockerfile() -> str:
    """The conformance image's Dockerfile; override to run the suite on another image."""
    return CONFORMANCE_DOCKERFILE


@pytest.fixture
def conformance_task(tmp_path_factory: pytest.TempPathFactory, conformance_dockerfile: str) -> Task:
    """A tiny task every backend can build; its tests dir holds a secret marker."""
    root = tmp_path_factory.mktemp("conformance-task")
    environment = root / "environment"
    environment.mkdir()
    (environment / "Dockerfile").write_text(conformance_dockerfile)
    tests = root / "tests"
    tests.mkdir()
    (tests / "test.sh").write_text(f"#!/bin/sh\n# {SECRET}\necho ok\n")
    return Task(
        name="lhtb-conformance",
        instruction="conformance",
        environment=EnvironmentConfig(
            allow_internet=False, env={"TASK_VAR": "from-task"}, memory_mb=512
        ),
        agent=AgentConfig(user="agent"),
        path=root,
        environment_dir=environment,
        tests_dir=tests,
    )


@pytest.fixture
def conformance_run_id() -> str:
    """A run id unique to the test."""
    return f"conformance-{uuid.uuid4().hex[:10]}"


@pytest.fixture
async def conformance_sandbox(
    conformance_backend: SandboxBackend, conformance_task: Task, conformance_run_id: str
) -> AsyncIterator[ManagedSandbox]:
    """A started sandbox of :func:`conformance_task`, destroyed after the test."""
    image = await conformance_backend.prepare(conformance_task)
    sandbox = await conformance_backend.start(
        SandboxSpec(image=image, task=conformance_task, run_id=conformance_run_id)
    )
    try:
        yield sandbox
    finally:
        with anyio.CancelScope(shield=True):
            await sandbox.destroy()
            await conformance_backend.cleanup(conformance_run_id)


async def _text(sandbox: ManagedSandbox | Sandbox, command: str, **kwargs: object) -> str:
    result = await sandbox.exec(command, timeout=60, **kwargs)  # type: ignore[arg-type]
    assert result.ok, (result.exit_code, result.stderr_text)
    return result.stdout_text.strip()


# -- exec --------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_exec_argv_and_shell(conformance_sandbox: ManagedSandbox) -> None:
    """Shell strings run under ``sh -c``; argv lists run as given, spaces intact."""
    shell = await conformance_sandbox.exec("echo hello | tr a-z A-Z", timeout=60)
    assert shell.ok
    assert shell.stdout == b"HELLO\n"
    assert shell.stderr == b""
    argv = await conformance_sandbox.exec(["printf", "%s|", "a b", "c"], timeout=60)
    assert argv.stdout == b"a b|c|"
    err = await conformance_sandbox.exec("echo out; echo err >&2", timeout=60)
    assert (err.stdout, err.stderr) == (b"out\n", b"err\n")
    with pytest.raises(ExecError):
        await conformance_sandbox.exec(["/no/such/program"], timeout=60)
    with pytest.raises(ExecError):
        await conformance_sandbox.exec("   ")


@pytest.mark.anyio
async def test_exit_codes(conformance_sandbox: ManagedSandbox) -> None:
    """Exit codes pass through; death by signal N is 128+N."""
    assert (await conformance_sandbox.exec("exit 0", timeout=60)).ok
    failed = await conformance_sandbox.exec("exit 3", timeout=60)
    assert failed.exit_code == 3
    assert not failed.ok
    assert not failed.timed_out
    killed = await conformance_sandbox.exec("kill -9 $$", timeout=60)
    assert killed.exit_code == 137
    assert not killed.timed_out
    missing = await conformance_sandbox.exec("no-such-command-xyz", timeout=60)
    assert missing.exit_code == 127


@pytest.mark.anyio
async def test_stdin(conformance_sandbox: ManagedSandbox) -> None:
    """Text and binary stdin reach the command and are closed after."""
    assert (await conformance_sandbox.exec("cat", stdin="text in", timeout=60)).stdout == b"text in"
    payload = bytes(range(256)) * 4096
    echoed = await conformance_sandbox.exec(["cat"], stdin=payload, timeout=60)
    assert echoed.stdout == payload
    empty = await conformance_sandbox.exec("cat; echo done", timeout=60)
    assert empty.stdout == b"done\n"


@pytest.mark.anyio
async def test_env(conformance_sandbox: ManagedSandbox) -> None:
    """The task's env is set; per-exec env adds and overrides; PATH finds system tools."""
    assert await _text(conformance_sandbox, "echo $TASK_VAR") == "from-task"
    assert (
        await _text(conformance_sandbox, "echo $A $TASK_VAR", env={"A": "1", "TASK_VAR": "x"})
        == "1 x"
    )
    assert await _text(conformance_sandbox, "command -v tar") != ""


@pytest.mark.anyio
async def test_cwd(conformance_sandbox: ManagedSandbox) -> None:
    """Commands start in the workdir unless ``cwd`` says otherwise; a missing cwd fails."""
    assert await _text(conformance_sandbox, "pwd") == "/app"
    assert await _text(conformance_sandbox, "pwd", cwd="/tmp") == "/tmp"
    with pytest.raises(ExecError):
        await conformance_sandbox.exec("pwd", cwd="/does/not/exist", timeout=60)


@pytest.mark.anyio
async def test_users(conformance_sandbox: ManagedSandbox) -> None:
    """Harness commands run as root; ``user`` switches; the agent view is held to
    [agent].user (another ``user`` is refused, not honoured)."""
    assert await _text(conformance_sandbox, "id -u") == "0"
    assert await _text(conformance_sandbox, "id -un", user="agent") == "agent"
    view = conformance_sandbox.agent_view()
    assert await _text(view, "id -un") == "agent"
    assert await _text(view, "echo $HOME") == "/home/agent"
    for other in ("root", 0, "nobody"):
        with pytest.raises(ExecError, match=r"\[agent\]\.user"):
            await view.exec("id -u", user=other, timeout=60)
    assert await _text(view, "id -un", user="agent") == "agent"
    with pytest.raises(ExecError):
        await conformance_sandbox.exec("true", user="no-such-user", timeout=60)
    denied = await view.exec("touch /etc/agent-was-here", timeout=60)
    assert not denied.ok


@pytest.mark.anyio
async def test_timeout_kills_process_group(conformance_sandbox: ManagedSandbox) -> None:
    """A timeout sets ``timed_out`` and kills the command's whole process group."""
    result = await conformance_sandbox.exec("sleep 301 & sleep 302; echo never", timeout=1.0)
    assert result.timed_out
    assert not result.ok
    assert b"never" not in result.stdout
    assert result.duration_sec < 120  # not the 302 s of the command
    listing = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done"
    with anyio.fail_after(60):  # the whole group goes (at once, or as the kill lands)
        while "sleep 30" in (left := await _text(conformance_sandbox, listing)):
            await anyio.sleep(0.1)
    assert "sleep 301" not in left
    with pytest.raises(ExecError):
        await conformance_sandbox.exec("true", timeout=0)


@pytest.mark.anyio
async def test_large_output_and_truncation(conformance_sandbox: ManagedSandbox) -> None:
    """Megabytes of output arrive whole; ``output_limit`` truncates per stream and says so."""
    big = await conformance_sandbox.exec("head -c 5000000 /dev/zero", timeout=60)
    assert len(big.stdout) == 5_000_000
    assert not big.stdout_truncated
    capped = await conformance_sandbox.exec(
        "head -c 100000 /dev/zero; head -c 100000 /dev/zero >&2", timeout=60, output_limit=1000
    )
    assert capped.ok
    assert len(capped.stdout) == 1000
    assert capped.stdout_truncated
    assert len(capped.stderr) == 1000
    assert capped.stderr_truncated
    small = await conformance_sandbox.exec("echo hi", timeout=60, output_limit=1000)
    assert not small.stdout_truncated


@pytest.mark.anyio
async def test_binary_output_and_files(conformance_sandbox: ManagedSandbox) -> None:
    """Every byte value survives a file write and a ``cat``."""
    payload = bytes(range(256)) * 1000 + b"\x00\xff"
    await conformance_sandbox.write_file("/app/blob.bin", payload)
    result = await conformance_sandbox.exec(["cat", "/app/blob.bin"], timeout=60)
    assert result.stdout == payload
    assert await conformance_sandbox.read_file("/app/blob.bin") == payload


# -- files -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_files(conformance_sandbox: ManagedSandbox) -> None:
    """Write/read round trip, parents created, modes, errors, and agent-owned writes."""
    await conformance_sandbox.write_file("/app/deep/er/note.txt", "hello", mode=0o750)
    assert await conformance_sandbox.read_file("/app/deep/er/note.txt") == b"hello"
    assert await _text(conformance_sandbox, "stat -c %a /app/deep/er/note.txt") == "750"
    await conformance_sandbox.write_file("/app/deep/er/note.txt", b"replaced")
    assert await conformance_sandbox.read_file("/app/deep/er/note.txt") == b"replaced"
    with pytest.raises(FileNotFoundError):
        await conformance_sandbox.read_file("/app/missing.txt")
    with pytest.raises(IsADirectoryError):
        await conformance_sandbox.read_file("/app")
    view = conformance_sandbox.agent_view()
    await view.write_file("/home/agent/mine.txt", "agent data")
    assert await _text(conformance_sandbox, "stat -c %U /home/agent/mine.txt") == "agent"
    assert await view.read_file("/home/agent/mine.txt") == b"agent data"
    with pytest.raises(PermissionError):
        await view.write_file("/etc/forbidden", "x")
    with pytest.raises(PermissionError):
        await view.read_file("/etc/shadow")


# -- control -----------------------------------------------------------------------------------


async def _counter(sandbox: ManagedSandbox) -> int:
    text = (await sandbox.exec("cat /tmp/counter", timeout=60)).stdout_text.strip()
    return int(text or 0)


@pytest.mark.anyio
async def test_exec_works_while_frozen_and_freeze_stops_processes(
    conformance_sandbox: ManagedSandbox,
) -> None:
    """After freeze a background counter stops advancing; exec still works; thaw resumes it."""
    view = conformance_sandbox.agent_view()
    started = await view.exec(f"nohup sh -c '{_COUNTER}' >/dev/null 2>&1 &", timeout=60)
    assert started.ok
    with anyio.fail_after(30):
        while await _counter(conformance_sandbox) < 3:
            await anyio.sleep(0.1)
    await conformance_sandbox.freeze()
    try:
        await anyio.sleep(0.3)
        first = await _counter(conformance_sandbox)
        await anyio.sleep(1.0)
        assert await _counter(conformance_sandbox) == first, "counter advanced while frozen"
        assert await _text(conformance_sandbox, "echo still-works") == "still-works"
    finally:
        await conformance_sandbox.thaw()
    with anyio.fail_after(30):
        while await _counter(conformance_sandbox) <= first:
            await anyio.sleep(0.1)


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


@pytest.mark.anyio
async def test_export_import_round_trip(
    conformance_backend: SandboxBackend,
    conformance_sandbox: ManagedSandbox,
    conformance_task: Task,
    conformance_run_id: str,
) -> None:
    """An export (names relative to ``/``) imports into a fresh sandbox unchanged."""
    await _text(
        conformance_sandbox,
        "mkdir -p /app/out/sub /app/out/cache && printf abc > /app/out/a.txt && "
        "head -c 300000 /dev/urandom > /app/out/sub/b.bin && ln -s a.txt /app/out/link && "
        "echo junk > /app/out/cache/x && chown agent /app/out/a.txt && chmod 640 /app/out/a.txt",
    )
    archive = await conformance_sandbox.export(["/app/out"], exclude=["cache"])
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        names = {m.name.rstrip("/") for m in tar.getmembers()}
    assert {"app/out", "app/out/a.txt", "app/out/sub/b.bin", "app/out/link"} <= names
    assert not any("cache" in name for name in names)
    with pytest.raises(FileNotFoundError):
        await conformance_sandbox.export(["/app/nothing-here"])
    original = await _text(conformance_sandbox, "md5sum /app/out/sub/b.bin | cut -d' ' -f1")
    image = await conformance_backend.prepare(conformance_task)
    fresh = await conformance_backend.start(
        SandboxSpec(image=image, task=conformance_task, run_id=conformance_run_id, role="verifier")
    )
    try:
        await fresh.import_(archive, dest="/")
        assert await fresh.read_file("/app/out/a.txt") == b"abc"
        assert await _text(fresh, "md5sum /app/out/sub/b.bin | cut -d' ' -f1") == original
        assert await _text(fresh, "readlink /app/out/link") == "a.txt"
        assert await _text(fresh, "stat -c '%U %a' /app/out/a.txt") == "agent 640"
        assert await _text(fresh, "test -e /app/out/cache && echo yes || echo no") == "no"
        await fresh.import_(archive, dest="/elsewhere")
        assert await fresh.read_file("/elsewhere/app/out/a.txt") == b"abc"
    finally:
        with anyio.CancelScope(shield=True):
            await fresh.destroy()


@pytest.mark.anyio
async def test_import_refuses_unsafe_archives(conformance_sandbox: ManagedSandbox) -> None:
    """Traversal, absolute names, escaping links and devices are refused; nothing lands."""
    evil: list[bytes] = []
    evil.append(_tar([(tarfile.TarInfo("../escape.txt"), b"x")]))
    evil.append(_tar([(tarfile.TarInfo("/abs.txt"), b"x")]))
    link = tarfile.TarInfo("link")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc"
    evil.append(_tar([(link, None)]))
    relative = tarfile.TarInfo("uplink")
    relative.type, relative.linkname = tarfile.SYMTYPE, "../../etc"
    evil.append(_tar([(relative, None)]))
    through = tarfile.TarInfo("inside")
    through.type, through.linkname = tarfile.SYMTYPE, "sub"
    evil.append(_tar([(through, None), (tarfile.TarInfo("inside/x"), b"x")]))
    device = tarfile.TarInfo("dev")
    device.type, device.devmajor, device.devminor = tarfile.CHRTYPE, 1, 3
    evil.append(_tar([(device, None)]))
    fifo = tarfile.TarInfo("fifo")
    fifo.type = tarfile.FIFOTYPE
    evil.append(_tar([(fifo, None)]))
    hard = tarfile.TarInfo("hard")
    hard.type, hard.linkname = tarfile.LNKTYPE, "etc/shadow"
    evil.append(_tar([(hard, None)]))
    for archive in evil:
        with pytest.raises(ArchiveError):
            await conformance_sandbox.import_(archive, dest="/app")
    with pytest.raises(ArchiveError):
        await conformance_sandbox.import_(b"not a tar archive at all", dest="/app")
    assert await _text(conformance_sandbox, "ls -A /app") == ""
    leaked = "ls /escape.txt /abs.txt /app/abs.txt 2>/dev/null | wc -l"
    assert await _text(conformance_sandbox, leaked) == "0"


@pytest.mark.anyio
async def test_snapshot_starts_identical_sandbox(
    conformance_backend: SandboxBackend, conformance_sandbox: ManagedSandbox
) -> None:
    """A snapshot holds the files written so far; release removes it."""
    await conformance_sandbox.write_file("/app/state.txt", "before snapshot")
    await _text(conformance_sandbox, "rm -f /etc/debian_version")
    spec = await conformance_sandbox.snapshot()
    await conformance_sandbox.write_file("/app/state.txt", "after snapshot")
    copy = await conformance_backend.start(spec)
    try:
        assert await copy.read_file("/app/state.txt") == b"before snapshot"
        assert await _text(copy, "test -e /etc/debian_version && echo yes || echo no") == "no"
        assert await _text(copy, "id -un", user="agent") == "agent"
    finally:
        with anyio.CancelScope(shield=True):
            await copy.destroy()
            await conformance_backend.release(spec)
            await conformance_backend.release(spec)
    assert await conformance_sandbox.read_file("/app/state.txt") == b"after snapshot"


@pytest.mark.anyio
async def test_staged_snapshot_holds_the_state_at_the_freeze(
    conformance_backend: SandboxBackend, conformance_sandbox: ManagedSandbox
) -> None:
    """A snapshot staged in a capture's pause and made after the thaw holds the state
    at the freeze: written, owned, deleted and replaced files, none of the later changes."""
    await _text(
        conformance_sandbox,
        "echo frozen > /app/state.txt && chown agent: /app/state.txt "
        "&& rm -f /etc/debian_version && rm -rf /etc/apt && mkdir /etc/apt && echo new > "
        "/etc/apt/only.txt",
    )
    await conformance_sandbox.freeze_for_capture()
    try:
        make = await conformance_sandbox.stage_snapshot()
    finally:
        await conformance_sandbox.thaw()
    await _text(conformance_sandbox, "echo later > /app/state.txt && echo later > /app/later.txt")
    spec = await make()
    copy = await conformance_backend.start(spec)
    try:
        assert await copy.read_file("/app/state.txt") == b"frozen\n"
        assert await _text(copy, "stat -c %U /app/state.txt") == "agent"
        assert await _text(
            copy, "ls -A /etc/apt; ls /etc/debian_version /app/later.txt 2>/dev/null; true"
        ) == ("only.txt")
    finally:
        with anyio.CancelScope(shield=True):
            await copy.destroy()
            await conformance_backend.release(spec)
    assert await conformance_sandbox.read_file("/app/state.txt") == b"later\n"


@pytest.mark.anyio
async def test_no_network_without_internet(conformance_sandbox: ManagedSandbox) -> None:
    """Without ``allow_internet`` the sandbox has loopback only."""
    devices = await _text(conformance_sandbox, "tail -n +3 /proc/net/dev | cut -d: -f1")
    assert [d.strip() for d in devices.splitlines()] == ["lo"]


@pytest.mark.anyio
async def test_tests_directory_stays_out(
    conformance_sandbox: ManagedSandbox, conformance_task: Task
) -> None:
    """Neither ``/tests`` nor the task's tests or task directory on the host is visible."""
    assert conformance_task.tests_dir is not None
    assert conformance_task.path is not None
    for path in ("/tests", str(conformance_task.tests_dir), str(conformance_task.path)):
        probe = f"test -e '{path}' && echo visible || echo hidden"
        assert await _text(conformance_sandbox, probe) == "hidden", path


@pytest.mark.anyio
async def test_agent_view_is_restricted(conformance_sandbox: ManagedSandbox) -> None:
    """The agent's view offers exec and files, and none of the control operations."""
    view = conformance_sandbox.agent_view()
    assert isinstance(view, Sandbox)
    for name in ("freeze", "thaw", "export", "import_", "snapshot", "destroy"):
        assert not hasattr(view, name), name


@pytest.mark.anyio
async def test_cleanup_removes_run(
    conformance_backend: SandboxBackend, conformance_task: Task
) -> None:
    """``cleanup(run_id)`` removes a run's sandboxes (and only that run's)."""
    run_id = f"conformance-cleanup-{uuid.uuid4().hex[:8]}"
    other_run = f"conformance-other-{uuid.uuid4().hex[:8]}"
    image = await conformance_backend.prepare(conformance_task)
    doomed = await conformance_backend.start(
        SandboxSpec(image=image, task=conformance_task, run_id=run_id)
    )
    kept = await conformance_backend.start(
        SandboxSpec(image=image, task=conformance_task, run_id=other_run)
    )
    try:
        await _text(doomed, "sleep 300 >/dev/null 2>&1 &")
        assert await conformance_backend.cleanup(run_id) >= 1
        with pytest.raises((SandboxUnavailableError, SandboxError)):
            await doomed.exec("true", timeout=30)
        assert await _text(kept, "echo alive") == "alive"
        assert await conformance_backend.cleanup(run_id) == 0
    finally:
        with anyio.CancelScope(shield=True):
            await doomed.destroy()
            await kept.destroy()
            await conformance_backend.cleanup(other_run)
