"""The exec channel (lhtb.sandbox.docker._channel): the helper on its own, then in Docker sandboxes.

The conformance suite runs on both Docker paths (see test_conformance.py); these
tests cover what is specific to the channel: it is really used, concurrency,
fallback, a killed or stopped helper, suspension around freeze, file transfer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.conformance import CONFORMANCE_DOCKERFILE, CONFORMANCE_PYTHON_DOCKERFILE
from lhtb.sandbox.docker import DockerBackend, DockerSandbox, DockerSettings, _channel
from lhtb.sandbox.docker._channel import FRAME, ChannelBrokenError, ChannelSettings
from lhtb.task import AgentConfig, EnvironmentConfig, Task

RUN_ID = f"test-channel-{uuid.uuid4().hex[:8]}"

# -- the helper on the host (no Docker) ----------------------------------------------------


class _Helper:
    """The helper as a local subprocess, speaking the channel protocol on pipes."""

    def __init__(self) -> None:
        source = Path(_channel.__file__).with_name("_channel_helper.py")
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(source)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        kind, _, payload = self.frame()
        assert kind == _channel.HELLO
        assert json.loads(payload)["version"] == _channel.PROTOCOL_VERSION

    def send(self, call_id: int, kind: int, payload: bytes = b"") -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(FRAME.pack(len(payload), call_id, kind) + payload)
        self.proc.stdin.flush()

    def start(self, call_id: int, argv: list[str], **extra: Any) -> None:
        spec = {"argv": argv, "limit": 1 << 22, "stdin": False, "grace": 0.2, **extra}
        self.send(call_id, _channel.START, json.dumps(spec).encode())

    def frame(self) -> tuple[int, int, bytes]:
        assert self.proc.stdout is not None
        header = self.proc.stdout.read(FRAME.size)
        length, call_id, kind = FRAME.unpack(header)
        return kind, call_id, self.proc.stdout.read(length)

    def collect(self, count: int) -> dict[int, dict[str, Any]]:
        """Read frames until ``count`` calls ended; output and exit per call id."""
        calls: dict[int, dict[str, Any]] = {}
        done = 0
        while done < count:
            kind, call_id, payload = self.frame()
            call = calls.setdefault(call_id, {"out": b"", "err": b""})
            if kind == _channel.STDOUT:
                call["out"] += payload
            elif kind == _channel.STDERR:
                call["err"] += payload
            else:
                call["exit" if kind == _channel.EXIT else "fail"] = json.loads(payload)
                done += 1
        return calls

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=10) == 0


@pytest.fixture
def helper() -> Iterator[_Helper]:
    running = _Helper()
    yield running
    running.close()


def barrier(directory: str, number: int, count: int) -> str:
    """A shell snippet that returns once ``count`` commands have reached it (or fails
    after 120 s): run sequentially, the first of them would never get past it."""
    return (
        f"touch {directory}/{number}; i=0; "
        f"while set -- {directory}/*; [ $# -lt {count} ]; do "
        f"i=$((i+1)); [ $i -gt 600 ] && exit 9; sleep 0.2; done"
    )


def test_helper_runs_commands_concurrently_and_keeps_streams_apart(
    helper: _Helper, tmp_path: Path
) -> None:
    for call_id in range(1, 65):
        wait = barrier(str(tmp_path), call_id, 64)
        helper.start(call_id, ["sh", "-c", f"{wait}; echo out{call_id}; echo err{call_id} >&2"])
    calls = helper.collect(64)
    for call_id in range(1, 65):
        assert calls[call_id]["out"] == f"out{call_id}\n".encode()
        assert calls[call_id]["err"] == f"err{call_id}\n".encode()
        assert calls[call_id]["exit"]["code"] == 0


def test_helper_stdin_binary_caps_and_failures(helper: _Helper) -> None:
    blob = bytes(range(256)) * 5000
    helper.start(1, ["cat"], stdin=True)
    helper.send(1, _channel.STDIN, blob[:1000])
    helper.send(1, _channel.STDIN, blob[1000:])
    helper.send(1, _channel.STDIN_EOF)
    helper.start(2, ["sh", "-c", "head -c 5000 /dev/zero; head -c 10 /dev/zero >&2"], limit=100)
    helper.start(3, ["/no/such/program"])
    helper.start(4, ["pwd"], cwd="/no/such/dir")
    helper.start(5, ["sh", "-c", "kill -TERM $$"])
    calls = helper.collect(5)
    assert calls[1]["out"] == blob
    assert calls[2]["out"] == b"\0" * 100
    assert calls[2]["exit"]["stdout_truncated"]
    assert not calls[2]["exit"]["stderr_truncated"]
    assert "/no/such/program" in calls[3]["fail"]["message"]
    assert "chdir" in calls[4]["fail"]["message"]
    assert calls[5]["exit"]["code"] == 128 + 15


def test_helper_timeout_kills_the_process_group(helper: _Helper, tmp_path: Path) -> None:
    marker = tmp_path / "pids"
    helper.start(1, ["sh", "-c", f"sleep 301 & echo $! > {marker}; sleep 302"], timeout=0.5)
    calls = helper.collect(1)
    assert calls[1]["exit"]["timed_out"]
    assert calls[1]["exit"]["code"] == 137
    background = int(marker.read_text())

    def state() -> str:  # gone, or a zombie nobody reaped yet (the host's subreaper may be slow)
        try:
            return Path(f"/proc/{background}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return "gone"

    deadline = time.monotonic() + 60
    while state() not in {"gone", "Z"} and time.monotonic() < deadline:
        time.sleep(0.05)
    assert state() in {"gone", "Z"}


def test_helper_does_not_wait_forever_for_background_output(helper: _Helper) -> None:
    started = time.monotonic()
    helper.start(1, ["sh", "-c", "sleep 300 & echo started"])
    calls = helper.collect(1)
    assert calls[1]["out"] == b"started\n"
    assert time.monotonic() - started < 120  # not the 300 s of the background sleep


# -- Docker ----------------------------------------------------------------------------------


def _task(root: Path, dockerfile: str) -> Task:
    environment = root / "environment"
    environment.mkdir(parents=True)
    (environment / "Dockerfile").write_text(dockerfile)
    return Task(
        name="lhtb-conformance",
        instruction="channel",
        environment=EnvironmentConfig(allow_internet=False, memory_mb=512),
        agent=AgentConfig(user="agent"),
        path=root,
        environment_dir=environment,
    )


async def _start(client: Any, root: Path, dockerfile: str, **settings: Any) -> DockerSandbox:
    backend = DockerBackend(client, settings=DockerSettings(**settings))
    task = _task(root, dockerfile)
    image = await backend.prepare(task)
    return await backend.start(SandboxSpec(image=image, task=task, run_id=RUN_ID))


@pytest.fixture
async def sandbox(docker_client: Any, tmp_path: Path) -> AsyncIterator[DockerSandbox]:
    started = await _start(docker_client, tmp_path, CONFORMANCE_PYTHON_DOCKERFILE)
    try:
        yield started
    finally:
        with anyio.CancelScope(shield=True):
            await started.destroy()


def _channels(sandbox: DockerSandbox) -> _channel.ChannelManager:
    return sandbox._channel_manager()


async def _helper_pids(sandbox: DockerSandbox) -> list[str]:
    """Helper processes in the container, found through a plain Engine exec."""
    api = sandbox._backend.client.api
    exec_id = api.exec_create(sandbox.id, ["sh", "-c", "grep -l lhtb-channel /proc/[0-9]*/comm"])
    out = await anyio.to_thread.run_sync(api.exec_start, exec_id["Id"])
    return [line.split("/")[2] for line in out.decode().split()]


@pytest.mark.docker
@pytest.mark.anyio
async def test_channel_is_used_with_python3(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec("echo hi; echo there >&2; exit 3", timeout=30)
    assert (result.exit_code, result.stdout, result.stderr) == (3, b"hi\n", b"there\n")
    assert _channels(sandbox).available is True
    assert len(await _helper_pids(sandbox)) == 1
    view = sandbox.agent_view()
    assert (await view.exec("id -un", timeout=30)).stdout == b"agent\n"
    assert (await view.exec("echo $HOME", timeout=30)).stdout == b"/home/agent\n"


@pytest.mark.docker
@pytest.mark.anyio
async def test_64_concurrent_execs(sandbox: DockerSandbox) -> None:
    results: dict[int, Any] = {}

    async def one(number: int) -> None:
        wait = barrier("/tmp/barrier", number, 64)
        results[number] = await sandbox.agent_view().exec(
            f"{wait}; echo out{number}; echo err{number} >&2", timeout=180
        )

    await sandbox.exec("mkdir -p -m 1777 /tmp/barrier", timeout=60)
    async with anyio.create_task_group() as group:
        for number in range(64):
            group.start_soon(one, number)
    for number in range(64):
        assert results[number].ok
        assert results[number].stdout == f"out{number}\n".encode()
        assert results[number].stderr == f"err{number}\n".encode()
    assert _channels(sandbox).available is True


@pytest.mark.docker
@pytest.mark.anyio
async def test_a_quiet_command_outlasts_the_api_timeout(tmp_path: Path) -> None:
    """A command with no output for longer than one Engine API read keeps its channel."""
    backend = DockerBackend(settings=DockerSettings(api_timeout_sec=2.0))
    task = _task(tmp_path, CONFORMANCE_PYTHON_DOCKERFILE)
    image = await backend.prepare(task)
    sandbox = await backend.start(SandboxSpec(image=image, task=task, run_id=RUN_ID))
    try:
        assert (await sandbox.exec("true", timeout=30)).ok
        assert _channels(sandbox).available is True
        result = await sandbox.exec("sleep 6; echo done", timeout=60)
        assert result.stdout == b"done\n"
        assert _channels(sandbox).restarts == 0
    finally:
        with anyio.CancelScope(shield=True):
            await sandbox.destroy()


@pytest.mark.docker
@pytest.mark.anyio
async def test_binary_output_and_stream_separation(sandbox: DockerSandbox) -> None:
    blob = bytes(range(256)) * 4096 + b"\0\xff"
    echoed = await sandbox.exec(["sh", "-c", "cat; printf 'E\\0\\377' >&2"], stdin=blob, timeout=60)
    assert echoed.stdout == blob
    assert echoed.stderr == b"E\0\xff"
    mixed = await sandbox.exec("for i in $(seq 200); do echo o$i; echo e$i >&2; done", timeout=60)
    assert mixed.stdout.split() == [f"o{i}".encode() for i in range(1, 201)]
    assert mixed.stderr.split() == [f"e{i}".encode() for i in range(1, 201)]


@pytest.mark.docker
@pytest.mark.anyio
async def test_timeout_kills_process_group_through_channel(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec("sleep 301 & sleep 302; echo never", timeout=1.0)
    assert result.timed_out
    assert result.exit_code == 137
    assert result.stdout == b""
    assert result.duration_sec < 120  # not the 302 s of the command
    left = await sandbox.exec("cat /proc/[0-9]*/cmdline | tr '\\0' ' '", timeout=30)
    assert b"sleep 301" not in left.stdout
    assert b"sleep 302" not in left.stdout
    assert _channels(sandbox).available is True


@pytest.mark.docker
@pytest.mark.anyio
async def test_killed_helper_fails_the_call_clearly_and_restarts(sandbox: DockerSandbox) -> None:
    assert (await sandbox.exec("true", timeout=30)).ok
    [pid] = await _helper_pids(sandbox)
    outcome: list[BaseException] = []

    async def in_flight() -> None:
        try:
            await sandbox.exec("touch /tmp/in-flight; sleep 300", timeout=600)
        except ChannelBrokenError as error:
            outcome.append(error)

    started = time.monotonic()
    async with anyio.create_task_group() as group:
        group.start_soon(in_flight)
        with anyio.fail_after(60):  # the call is running in the helper
            while not (await sandbox.exec("test -e /tmp/in-flight", timeout=30)).ok:
                await anyio.sleep(0.05)
        api = sandbox._backend.client.api
        kill = api.exec_create(sandbox.id, ["kill", "-KILL", pid])
        await anyio.to_thread.run_sync(api.exec_start, kill["Id"])
    assert time.monotonic() - started < 120, "the in-flight call hung (it sleeps 300 s)"
    [error] = outcome
    assert "helper stopped" in str(error)
    again = await sandbox.exec("echo back", timeout=30)
    assert again.stdout == b"back\n"
    assert _channels(sandbox).restarts == 1
    assert _channels(sandbox).available is True
    assert await _helper_pids(sandbox) != [pid]


@pytest.mark.docker
@pytest.mark.anyio
async def test_agent_killing_the_helper_from_a_command(sandbox: DockerSandbox) -> None:
    view = sandbox.agent_view()
    await view.exec("true", timeout=30)
    with pytest.raises(ChannelBrokenError):
        await sandbox.exec("kill -KILL $(grep -l lhtb-channel /proc/[0-9]*/comm | cut -d/ -f3)")
    assert (await view.exec("echo ok", timeout=30)).stdout == b"ok\n"


@pytest.mark.docker
@pytest.mark.anyio
async def test_image_without_python3_falls_back_once(
    docker_client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[int] = []
    original = _channel.ExecChannel.start_sync

    def counted(self: _channel.ExecChannel) -> bool:
        attempts.append(1)
        return original(self)

    monkeypatch.setattr(_channel.ExecChannel, "start_sync", counted)
    sandbox = await _start(docker_client, tmp_path, CONFORMANCE_DOCKERFILE)
    try:
        for _ in range(3):
            result = await sandbox.exec("echo plain; echo e >&2; exit 4", timeout=30)
            assert (result.exit_code, result.stdout, result.stderr) == (4, b"plain\n", b"e\n")
        assert _channels(sandbox).available is False
        assert attempts == [1]
        timed = await sandbox.exec("sleep 30", timeout=0.5)
        assert timed.timed_out
    finally:
        await sandbox.destroy()


@pytest.mark.docker
@pytest.mark.anyio
async def test_broken_python3_falls_back(sandbox: DockerSandbox) -> None:
    channels = _channels(sandbox)
    await channels.suspend(sandbox._kill_in_sandbox)
    broken = await sandbox.exec(
        "for p in /usr/bin/python3*; do [ -L $p ] && continue; "
        "mv $p $p.real && printf '#!/bin/sh\\nexit 1\\n' > $p && chmod +x $p; done",
        timeout=30,
    )
    assert broken.ok, broken.stderr_text
    channels.resume()
    assert (await sandbox.exec("echo fine", timeout=30)).stdout == b"fine\n"
    assert channels.available is False


@pytest.mark.docker
@pytest.mark.anyio
async def test_freeze_stops_the_helper_and_control_ops_use_plain_exec(
    sandbox: DockerSandbox,
) -> None:
    view = sandbox.agent_view()
    assert (await view.exec("true", timeout=30)).ok
    assert len(await _helper_pids(sandbox)) == 1
    await sandbox.freeze()
    try:
        assert await _helper_pids(sandbox) == [], "the helper runs during verification"
        assert not _channels(sandbox).active
        ps = await sandbox.exec("cat /proc/[0-9]*/comm", timeout=30)
        assert b"lhtb-channel" not in ps.stdout
    finally:
        await sandbox.thaw()
    assert (await view.exec("echo again", timeout=30)).stdout == b"again\n"
    assert len(await _helper_pids(sandbox)) == 1


@pytest.mark.docker
@pytest.mark.anyio
async def test_freeze_kills_a_helper_the_agent_stopped(docker_client: Any, tmp_path: Path) -> None:
    fast = attrs.evolve(ChannelSettings(), stop_timeout_sec=0.5)
    sandbox = await _start(docker_client, tmp_path, CONFORMANCE_PYTHON_DOCKERFILE, channel=fast)
    try:
        assert (await sandbox.exec("true", timeout=30)).ok
        [pid] = await _helper_pids(sandbox)
        api = sandbox._backend.client.api
        stop = api.exec_create(sandbox.id, ["kill", "-STOP", pid])
        await anyio.to_thread.run_sync(api.exec_start, stop["Id"])
        with anyio.fail_after(30):
            await sandbox.freeze()
        assert await _helper_pids(sandbox) == []
        await sandbox.thaw()
        assert (await sandbox.exec("echo up", timeout=30)).stdout == b"up\n"
    finally:
        await sandbox.destroy()


@pytest.mark.docker
@pytest.mark.anyio
async def test_verifier_sandboxes_never_use_the_channel(docker_client: Any, tmp_path: Path) -> None:
    backend = DockerBackend(docker_client)
    task = _task(tmp_path, CONFORMANCE_PYTHON_DOCKERFILE)
    image = await backend.prepare(task)
    sandbox = await backend.start(
        SandboxSpec(image=image, task=task, run_id=RUN_ID, role="verifier")
    )
    try:
        assert (await sandbox.exec("true", timeout=30)).ok
        assert _channels(sandbox).available is False
        assert await _helper_pids(sandbox) == []
    finally:
        await sandbox.destroy()


@pytest.mark.docker
@pytest.mark.anyio
async def test_files_small_through_channel_big_through_archive(
    docker_client: Any, tmp_path: Path
) -> None:
    small_cap = attrs.evolve(ChannelSettings(), file_channel_max_bytes=1000)
    sandbox = await _start(
        docker_client, tmp_path, CONFORMANCE_PYTHON_DOCKERFILE, channel=small_cap
    )
    try:
        for size in (0, 10, 1000, 1001, 300_000):
            payload = os.urandom(size)
            path = f"/tmp/deep/f{size}.bin"
            await sandbox.write_file(path, payload)
            assert await sandbox.read_file(path) == payload
            mode = await sandbox.exec(["stat", "-c", "%a %U", path], timeout=30)
            assert mode.stdout == b"644 root\n"
        await sandbox.write_file("/tmp/x.sh", "echo", mode=0o750)
        assert (await sandbox.exec(["stat", "-c", "%a", "/tmp/x.sh"])).stdout == b"750\n"
        with pytest.raises(FileNotFoundError):
            await sandbox.read_file("/tmp/missing")
        with pytest.raises(IsADirectoryError):
            await sandbox.read_file("/tmp")
        assert _channels(sandbox).available is True
    finally:
        await sandbox.destroy()


# -- the local backend: its init is the channel ------------------------------------------------


@pytest.mark.anyio
async def test_local_init_cannot_be_killed_from_inside(tmp_path: Path) -> None:
    """The local backend runs every command through its init (PID 1 of the sandbox's PID
    namespace): the killed-helper case cannot arise there, signals from inside are ignored."""
    from lhtb.errors import BackendUnavailableError
    from lhtb.sandbox.local import LocalBackend, check_host

    try:
        check_host()
    except BackendUnavailableError as error:
        pytest.skip(str(error))
    backend = LocalBackend()
    task = _task(tmp_path, CONFORMANCE_DOCKERFILE)
    sandbox = await backend.start(
        SandboxSpec(image=await backend.prepare(task), task=task, run_id=RUN_ID)
    )
    try:
        signals = "for s in KILL TERM STOP INT HUP QUIT; do kill -$s 1; done; echo sent"
        assert (await sandbox.exec(signals, timeout=30)).stdout == b"sent\n"
        await anyio.sleep(0.3)
        assert (await sandbox.exec("echo alive", timeout=30)).stdout == b"alive\n"
        await sandbox.freeze()
        try:
            assert (await sandbox.exec("echo frozen", timeout=30)).stdout == b"frozen\n"
        finally:
            await sandbox.thaw()
    finally:
        await sandbox.destroy()
        await backend.cleanup(RUN_ID)
