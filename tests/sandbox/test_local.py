"""LocalBackend beyond the shared contract: isolation from the host, hardening, the
Dockerfile subset and its cache, orphan cleanup, terminals, and backend selection.

These tests fail (not skip) under CI=true when the host cannot run local sandboxes.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

import lhtb
from lhtb.agents import Turn
from lhtb.errors import (
    ArchiveError,
    BackendNotFoundError,
    BackendUnavailableError,
    SandboxError,
    SandboxUnavailableError,
    UnsupportedFeatureError,
)
from lhtb.sandbox import registry
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.local import LocalBackend, LocalSandbox, LocalSettings, check_host
from lhtb.sandbox.local import _network as _local_network
from lhtb.sandbox.local._cgroups import process_alive
from lhtb.sandbox.local._dockerfile import parse_dockerfile
from lhtb.sandbox.local._root import default_state_root
from lhtb.task import AgentConfig, EnvironmentConfig, Task

pytestmark = pytest.mark.anyio

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
DOCKERFILE = "FROM debian:bookworm-slim\nRUN useradd -m agent && mkdir -p /app\nWORKDIR /app\n"


@pytest.fixture(scope="module")
def local_backend() -> LocalBackend:
    try:
        check_host()
    except BackendUnavailableError as error:
        if IN_CI:
            pytest.fail(f"the local backend cannot run here, and CI=true: {error}")
        pytest.skip(str(error))
    return LocalBackend()


@pytest.fixture
def run_id() -> Iterator[str]:
    value = f"test-local-{uuid.uuid4().hex[:8]}"
    yield value
    backend = LocalBackend()
    leftovers = list(backend.sandboxes_dir.glob("lb-*"))
    records = [p for p in leftovers if value in _record(p / "sandbox.json")]
    assert records == [], "a test left local sandboxes behind"


def _record(path: Path) -> str:
    """A sandbox's or image's record; empty while another run creates or removes it."""
    try:
        return path.read_text(errors="ignore")
    except FileNotFoundError:
        return ""


def make_task(root: Path, dockerfile: str = DOCKERFILE, **environment: object) -> Task:
    env_dir = root / "environment"
    env_dir.mkdir(parents=True, exist_ok=True)
    (env_dir / "Dockerfile").write_text(dockerfile)
    tests = root / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "test.sh").write_text("#!/bin/sh\necho 0 > /logs/verifier/reward.txt\n")
    return Task(
        name="test-local",
        instruction="x",
        environment=EnvironmentConfig(allow_internet=False, **environment),  # type: ignore[arg-type]
        agent=AgentConfig(user="agent"),
        path=root,
        environment_dir=env_dir,
        tests_dir=tests,
    )


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


async def sh(target: LocalSandbox, command: str, **kwargs: object) -> str:
    result = await target.exec(command, timeout=120, **kwargs)  # type: ignore[arg-type]
    return result.stdout_text.strip()


async def processes(target: LocalSandbox) -> str:
    """The command lines of every process in the sandbox."""
    return await sh(target, "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '")


# -- what an agent cannot see ---------------------------------------------------------------------


@pytest.fixture
def host_secrets() -> Iterator[dict[str, Path]]:
    """Marker files in a home directory, /root and the current directory's runs/."""
    tag = uuid.uuid4().hex[:8]
    made = {
        "home": Path(f"/home/lhtb-test-{tag}/secret.txt"),
        "root": Path(f"/root/.lhtb-test-{tag}"),
        "runs": Path.cwd() / "runs" / f"lhtb-test-{tag}" / "episode.json",
    }
    for path in made.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("host secret")
    yield made
    for path in made.values():
        path.unlink()
        if path.parent.name.startswith("lhtb-test-"):
            path.parent.rmdir()


async def test_host_home_directories_are_hidden(
    sandbox: LocalSandbox, host_secrets: dict[str, Path]
) -> None:
    for path in host_secrets.values():
        assert path.exists()
        assert await sh(sandbox, f"test -e '{path}' && echo visible || echo hidden") == "hidden"
        assert await sh(sandbox, f"test -e '{path.parent}' && echo visible || echo hidden") in {
            "hidden"
        } or path.parent == Path("/root")
    assert await sh(sandbox, "ls -A /root") == ""
    assert await sh(sandbox, "ls -A /home") == "agent"
    for directory in ("/tmp", "/var/tmp", "/run", "/mnt", "/media", "/srv"):
        assert await sh(sandbox, f"ls -A {directory} 2>/dev/null") == "", directory


async def test_docker_socket_and_runtime_state_are_hidden(sandbox: LocalSandbox) -> None:
    candidates = ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd"]
    for path in [*candidates, "/var/lib/docker", "/var/lib/containerd"]:
        assert await sh(sandbox, f"test -e {path} && echo visible || echo hidden") == "hidden"
    if Path("/var/lib/docker").is_dir():
        assert await sh(sandbox, "ls -A /var/lib/docker 2>/dev/null | wc -l") == "0"
    found = await sh(
        sandbox,
        "find / -xdev \\( -name docker.sock -o -name containerd.sock -o -type s \\) "
        "2>/dev/null | head",
    )
    assert found == ""


async def test_sdk_state_and_source_checkout_are_hidden(
    sandbox: LocalSandbox, local_backend: LocalBackend
) -> None:
    checkout = Path(lhtb.__file__).resolve().parents[2]
    for path in (local_backend.state_root, sandbox.directory, checkout, Path.cwd()):
        assert await sh(sandbox, f"test -e '{path}' && echo visible || echo hidden") == "hidden"


async def test_other_sandboxes_are_invisible(
    sandbox: LocalSandbox, local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> None:
    other_task = make_task(tmp_path / "other")
    image = await local_backend.prepare(other_task)
    other = await local_backend.start(SandboxSpec(image=image, task=other_task, run_id=run_id))
    try:
        await sh(other, "echo other-secret > /tmp/other.txt; sleep 777 >/dev/null 2>&1 &")
        assert await sh(sandbox, "cat /tmp/other.txt 2>&1 || true") != "other-secret"
        processes = await sh(sandbox, "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '")
        assert "sleep 777" not in processes
        assert "sleep 777" in await sh(other, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '")
        for path in (other.directory, other.upper):
            assert await sh(sandbox, f"test -e '{path}' && echo visible || echo hidden") == "hidden"
        assert await sh(sandbox, "hostname") != await sh(other, "hostname")
    finally:
        with anyio.CancelScope(shield=True):
            await other.destroy()


async def test_root_in_the_sandbox_cannot_undo_the_isolation(sandbox: LocalSandbox) -> None:
    attempts = {
        "mount": "mount -t tmpfs none /mnt",
        "umount": "umount /proc/sys",
        "mknod": "mknod /tmp/disk b 254 0",
        "sysctl": "echo evil > /proc/sys/kernel/hostname",
        "sysfs": "echo 1 > /sys/kernel/mm/ksm/run",
        "cgroups": "ls /sys/fs/cgroup/freezer",
        "unshare-remount": "unshare -m sh -c 'umount /root'",
    }
    for name, command in attempts.items():
        result = await sandbox.exec(command, timeout=60)
        assert not result.ok, f"{name} succeeded: {result.stdout_text}"
    assert await sh(sandbox, "grep CapEff /proc/self/status") != "CapEff:\t000001ffffffffff"


async def test_host_password_hashes_and_keys_stay_on_the_host(sandbox: LocalSandbox) -> None:
    shadow = await sh(sandbox, "cat /etc/shadow")
    assert shadow, "the sandbox needs a shadow file for its accounts"
    for line in shadow.splitlines():
        assert line.split(":")[1] in {"", "*", "!", "!!", "!*"}, line
    assert "agent:" in shadow
    keys = await sh(sandbox, "ls /etc/ssh/ssh_host_*_key /etc/ssl/private 2>/dev/null | wc -l")
    assert keys == "0"


async def test_init_process_reveals_no_host_path_or_environment(sandbox: LocalSandbox) -> None:
    cmdline = await sh(sandbox, "tr '\\0' ' ' < /proc/1/cmdline")
    assert cmdline.startswith("lhtb-sandbox-init")
    assert "/" not in cmdline.replace(" -", "")
    environ = await sandbox.exec("cat /proc/1/environ", timeout=60)
    assert not environ.ok
    assert not environ.stdout
    own = await sh(sandbox, "env")
    assert "LHTB_INIT_CONFIG" not in own
    assert "PYTHONPATH" not in own


class _Spy:
    """An agent that reports what it can see of the host's episode directories."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.seen: dict[str, str] = {}

    async def run(self, turn: Turn) -> None:
        for path in self.paths:
            result = await turn.sandbox.exec(f"test -e '{path}' && echo visible || echo hidden")
            self.seen[path] = result.stdout_text.strip()


async def test_episode_directories_are_hidden_from_the_agent(
    local_backend: LocalBackend,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    task = make_task(tmp_path / "task")
    task = attrs.evolve(task, agent=AgentConfig(user="agent", timeout_sec=60))
    explicit = tmp_path / "episodes" / "explicit"
    spy = _Spy([str(explicit), str(explicit / "events.jsonl"), str(work / "runs")])
    episode = await lhtb.run_episode(task, spy, backend=local_backend, output_dir=explicit)
    assert episode.outcome is lhtb.Outcome.UNSOLVED
    assert spy.seen, "the spy agent did not run"
    assert set(spy.seen.values()) == {"hidden"}, spy.seen
    # An output_dir outside every masked tree: found through the open event log.
    outside = Path(f"/opt/lhtb-test-{uuid.uuid4().hex[:8]}")
    run_dir = outside / "run"
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text("{}")
    try:
        sibling = run_dir / "other-episode" / "verifier"
        sibling.mkdir(parents=True)
        spy = _Spy([str(run_dir / "this-episode"), str(sibling), str(run_dir)])
        third = await lhtb.run_episode(
            task, spy, backend=local_backend, output_dir=run_dir / "this-episode"
        )
        assert third.outcome is lhtb.Outcome.UNSOLVED
        assert set(spy.seen.values()) == {"hidden"}, spy.seen
    finally:
        shutil.rmtree(outside)
    default_spy = _Spy([str(work / "runs")])
    second = await lhtb.run_episode(task, default_spy, backend=local_backend)
    assert (work / "runs").is_dir()
    assert second.outcome is lhtb.Outcome.UNSOLVED
    assert default_spy.seen == {str(work / "runs"): "hidden"}


# -- verifier isolation modes ---------------------------------------------------------------------

TEST_SH = """#!/bin/sh
if [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; then echo 1; else echo 0; fi \\
  > /logs/verifier/reward.txt
"""


def write_task_dir(root: Path, isolation: str) -> Path:
    (root / "environment").mkdir(parents=True)
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (root / "tests").mkdir()
    (root / "tests" / "test.sh").write_text(TEST_SH)
    (root / "solution").mkdir()
    (root / "solution" / "solve.sh").write_text("#!/bin/sh\necho 42 > /app/answer.txt\n")
    (root / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    artifacts = 'artifacts = ["/app"]\n' if isolation == "separate" else ""
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            schema_version = "1.1"
            {artifacts}
            [environment]
            allow_internet = false

            [agent]
            timeout_sec = 120
            continue_until_timeout = true

            [verifier]
            isolation = "{isolation}"
            timeout_sec = 60
            max_passes = 2
            """
        )
    )
    return root


@pytest.mark.parametrize("isolation", ["separate", "snapshot", "shared"])
async def test_every_isolation_mode_runs_unchanged(
    local_backend: LocalBackend, tmp_path: Path, isolation: str, run_id: str
) -> None:
    task = lhtb.load_task(write_task_dir(tmp_path / "task", isolation))
    options: dict[str, Any] = {"backend": local_backend, "run_id": run_id}
    solved = await lhtb.run_episode(
        task, lhtb.agents.OracleAgent(task), output_dir=tmp_path / "o", **options
    )
    assert (solved.outcome, solved.reward) == (lhtb.Outcome.SOLVED, 1.0), solved.error
    unsolved = await lhtb.run_episode(
        task, lhtb.agents.NopAgent(), output_dir=tmp_path / "n", **options
    )
    assert unsolved.outcome is lhtb.Outcome.UNSOLVED
    assert unsolved.reward == 0.0
    # (other tests' tasks have the same name: only this run's snapshots count)
    leftovers = list(local_backend.images_dir.glob("snap-*"))
    assert not any(run_id in _record(p / "image.json") for p in leftovers)


# -- provisioning -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("FROM x\nRUN true\nVOLUME /data\n", 3, "VOLUME"),
        ("FROM x AS a\nRUN true\nFROM y\n", 3, "multi-stage"),
        ("FROM x\nCOPY --from=a /x /y\n", 2, "COPY --from"),
        ("FROM x\n# comment\nADD https://example.com/x /x\n", 3, "URL"),
        ("FROM x\nADD data.tar.gz /x\n", 2, "archive"),
        ("FROM x\nRUN <<EOF\necho\nEOF\n", 2, "heredoc"),
        ('FROM x\nSHELL ["bash", "-c"]\n', 2, "SHELL"),
    ],
)
def test_unsupported_dockerfile_lines_are_named(
    tmp_path: Path, text: str, line: int, what: str
) -> None:
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    with pytest.raises(UnsupportedFeatureError) as caught:
        parse_dockerfile(path)
    assert caught.value.line == line
    assert what in str(caught.value)
    assert "--backend docker" in str(caught.value)
    assert f"{path}:{line}" in str(caught.value)


async def test_dockerfile_subset_is_provisioned(
    local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> None:
    root = tmp_path / "task"
    (root / "environment" / "app" / "sub").mkdir(parents=True)
    (root / "environment" / "app" / "main.py").write_text("print('hi')\n")
    (root / "environment" / "app" / "sub" / "data.txt").write_text("data")
    (root / "environment" / "single.cfg").write_text("cfg")
    dockerfile = textwrap.dedent(
        """\
        # syntax=docker/dockerfile:1
        FROM debian:bookworm-slim
        ARG GREETING=hello
        ENV APP_HOME=/srv/app \\
            MODE="fast"
        LABEL org.example=1
        RUN useradd -m agent && \\
            mkdir -p /opt/tools
        WORKDIR $APP_HOME
        COPY app/ ./
        COPY --chown=agent:agent single.cfg /etc/tool/
        ADD single.cfg /opt/tools/renamed.cfg
        RUN ["sh", "-c", "echo $GREETING-$MODE > built.txt"]
        USER agent
        RUN whoami > /home/agent/who.txt
        EXPOSE 8080
        CMD ["python3"]
        """
    )
    task = make_task(root, dockerfile)
    image = await local_backend.prepare(task)
    box = await local_backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    try:
        assert await sh(box, "pwd") == "/srv/app"
        assert await sh(box, "cat built.txt") == "hello-fast"
        assert await sh(box, "cat main.py sub/data.txt") == "print('hi')\ndata"
        assert await sh(box, "stat -c %U /etc/tool/single.cfg") == "agent"
        assert await sh(box, "cat /opt/tools/renamed.cfg") == "cfg"
        assert await sh(box, "cat /home/agent/who.txt") == "agent"
        assert await sh(box, "echo $MODE $APP_HOME") == "fast /srv/app"
        assert await sh(box, "id -un") == "root"
    finally:
        await box.destroy()


async def test_provisioned_layer_is_cached_by_content(
    local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> None:
    dockerfile = DOCKERFILE + "RUN cat /proc/sys/kernel/random/uuid > /built-id\n"
    task = make_task(tmp_path / "task", dockerfile)
    first = await local_backend.prepare(task)
    assert await local_backend.prepare(task) == first
    ids = []
    for _ in range(2):
        box = await local_backend.start(SandboxSpec(image=first, task=task, run_id=run_id))
        ids.append(await sh(box, "cat /built-id"))
        await box.destroy()
    assert ids[0] == ids[1]
    assert len(ids[0]) == 36
    (tmp_path / "task" / "environment" / "extra.txt").write_text("changed")
    assert await local_backend.prepare(task) != first


async def test_apt_get_install_runs_inside_the_overlay(
    local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> None:
    dockerfile = DOCKERFILE + "RUN apt-get install -y --no-install-recommends python3 >/dev/null\n"
    task = make_task(tmp_path / "task", dockerfile)
    image = await local_backend.prepare(task)
    box = await local_backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    try:
        assert await sh(box, "python3 -c 'print(6*7)'") == "42"
    finally:
        await box.destroy()


async def test_failing_build_step_names_the_line(
    local_backend: LocalBackend, tmp_path: Path
) -> None:
    task = make_task(tmp_path / "task", "FROM debian:bookworm-slim\n\nRUN echo boom >&2; exit 4\n")
    with pytest.raises(SandboxError) as caught:
        await local_backend.prepare(task)
    assert "Dockerfile:3" in str(caught.value)
    assert "boom" in str(caught.value)
    builds = list(local_backend.sandboxes_dir.glob("lb-*"))
    assert not any("build-env-test-local" in (p / "sandbox.json").read_text() for p in builds)


async def test_registry_images_and_compose_need_docker(
    local_backend: LocalBackend, tmp_path: Path
) -> None:
    task = Task(
        name="prebuilt",
        instruction="x",
        environment=EnvironmentConfig(docker_image="python:3.12"),
    )
    with pytest.raises(SandboxError, match="--backend docker"):
        await local_backend.prepare(task)


# -- lifecycle --------------------------------------------------------------------------------


async def test_cleanup_reaps_orphans_after_a_crash(
    local_backend: LocalBackend, tmp_path: Path
) -> None:
    run = f"test-local-crash-{uuid.uuid4().hex[:8]}"
    task = make_task(tmp_path / "task")
    image = await local_backend.prepare(task)
    box = await local_backend.start(SandboxSpec(image=image, task=task, run_id=run))
    await sh(box, "sleep 600 >/dev/null 2>&1 &")
    await box.freeze()
    spec = await box.snapshot()
    init_pid, directory = box.init_pid, box.directory
    cgroup = box.freezer.base
    del box  # the harness "crashed": nothing was destroyed
    fresh = LocalBackend()
    assert await fresh.cleanup(run) == 2  # the sandbox and its snapshot image
    assert not process_alive(init_pid, None)
    assert not directory.exists()
    assert cgroup is None or not cgroup.exists()
    assert not (fresh.images_dir / spec.image.split(":", 1)[1]).exists()


async def test_memory_and_cpu_limits_are_enforced(
    local_backend: LocalBackend, tmp_path: Path, run_id: str
) -> None:
    task = make_task(tmp_path / "task", memory_mb=128, cpus=0.5)
    image = await local_backend.prepare(task)
    box = await local_backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
    try:
        hog = await box.exec(
            "python3 -c 'b = bytearray(400 * 1024 * 1024); print(len(b))'", timeout=60
        )
        assert hog.exit_code == 137, (hog.exit_code, hog.stdout_text, hog.stderr_text)
        small = await box.exec("python3 -c 'b = bytearray(32 * 1024 * 1024)'", timeout=60)
        assert small.ok
        quota = Path(f"/sys/fs/cgroup/cpu/lhtb/{box.id}/cpu.cfs_quota_us")
        if quota.exists():
            assert quota.read_text().strip() == "50000"
    finally:
        await box.destroy()
    assert not Path(f"/sys/fs/cgroup/memory/lhtb/{box.id}").exists()


async def test_snapshot_over_the_cap_is_refused(tmp_path: Path, run_id: str) -> None:
    capped = LocalBackend(LocalSettings(max_snapshot_bytes=1024 * 1024))
    task = make_task(tmp_path / "task")
    box = await capped.start(
        SandboxSpec(image=await capped.prepare(task), task=task, run_id=run_id)
    )
    try:
        await sh(box, "truncate -s 5M /app/sparse.bin")
        with pytest.raises(ArchiveError, match="snapshot cap"):
            await box.snapshot()
        assert await sh(box, "echo thawed") == "thawed"
        assert not box.frozen
    finally:
        await box.destroy()


async def test_internet_without_slirp4netns_is_a_typed_error(
    local_backend: LocalBackend, tmp_path: Path, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task that allows internet needs slirp4netns; without it: a typed error naming
    the fix, and no sandbox left behind (the run_id fixture checks)."""
    task = make_task(tmp_path / "task")
    online = attrs.evolve(task, environment=attrs.evolve(task.environment, allow_internet=True))
    image = await local_backend.prepare(online)
    monkeypatch.setattr(_local_network, "SLIRP", "slirp4netns-not-installed")
    with pytest.raises(BackendUnavailableError, match="apt-get install slirp4netns"):
        await local_backend.start(SandboxSpec(image=image, task=online, run_id=run_id))


async def test_a_command_frozen_before_its_exec_does_not_hold_the_init(
    sandbox: LocalSandbox,
) -> None:
    """The init forks each command, which joins the agent's cgroup and then execs. A
    freeze landing between the two froze the command, and the init waited for it until
    the thaw: under an agent's fork bomb (no CPU for the command in a short thaw) the
    capture failed as an infra_error. The init serves on; the command starts at the thaw."""
    if sandbox.freezer.version == 0:
        if IN_CI:
            pytest.fail("CI=true, and this host has no freezer cgroup for local sandboxes")
        pytest.skip("this host has no freezer cgroup: the init's sweep freezes instead")
    assert sandbox.freezer.base is not None
    agent_procs = sandbox.freezer.base / "agent" / "cgroup.procs"
    init_cmdline = Path(f"/proc/{sandbox.init_pid}/cmdline").read_bytes()
    await anyio.to_thread.run_sync(sandbox.freezer.set_frozen, True)  # the freeze lands first
    outputs: list[str] = []

    async def agent_command() -> None:
        outputs.append(await sh(sandbox, "echo started"))

    def forked_not_execed() -> bool:
        pids = agent_procs.read_text().split()
        return any(Path(f"/proc/{p}/cmdline").read_bytes() == init_cmdline for p in pids)

    async with anyio.create_task_group() as group:
        group.start_soon(agent_command)
        while not forked_not_execed():  # set up: the command froze before its exec
            await anyio.sleep(0.01)
        await sandbox.ping(timeout=30)
        await sandbox.freeze()
        assert await sh(sandbox, "echo verifier") == "verifier"
        assert outputs == []  # still frozen
        await sandbox.thaw()
    assert outputs == ["started"]


async def test_destroyed_sandbox_is_unavailable(sandbox: LocalSandbox) -> None:
    await sandbox.destroy()
    await sandbox.destroy()
    with pytest.raises(SandboxUnavailableError):
        await sandbox.exec("true")


async def test_terminal_session(sandbox: LocalSandbox) -> None:
    view = sandbox.agent_view()
    async with await view.terminal() as terminal:
        await terminal.send("echo $((6*7)) $(id -un)\n")
        text = ""
        with anyio.fail_after(20):
            while "42 agent" not in text:
                text += await terminal.read(timeout=1.0)
        await terminal.send("sleep 555 & echo started-$((1+1))\n")
        with anyio.fail_after(20):
            while "started-2" not in text:
                text += await terminal.read(timeout=1.0)
        assert "sleep 555" in await processes(sandbox)  # the background job runs
    with anyio.fail_after(20):  # closing the session ends it
        while "sleep 555" in await processes(sandbox):
            await anyio.sleep(0.1)


# -- host checks and backend selection --------------------------------------------------------


def test_rootless_without_user_namespaces_says_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "kernel").mkdir()
    (tmp_path / "kernel" / "unprivileged_userns_clone").write_text("0\n")
    with pytest.raises(BackendUnavailableError) as caught:
        check_host(rootless=True, sysctl_root=tmp_path)
    message = str(caught.value)
    assert "kernel.unprivileged_userns_clone=0" in message
    assert "sysctl kernel.unprivileged_userns_clone=1" in message
    assert "--backend docker" in message
    check_host(rootless=False, sysctl_root=tmp_path)


def test_state_root_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LHTB_LOCAL_STATE", str(tmp_path))
    assert default_state_root() == tmp_path


def test_auto_prefers_docker_when_it_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_docker_answers", lambda timeout: True)
    assert registry.resolve_backend("auto").name == "docker"
    monkeypatch.setattr(registry, "_docker_answers", lambda timeout: False)
    assert registry.resolve_backend(None).name == "local"
    assert registry.resolve_backend("local").name == "local"
    assert {"docker", "local"} <= set(registry.available_backends())


def test_auto_ping_gives_up_quickly_without_a_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    assert registry.auto_backend_name(timeout=1) == "local"


def test_third_party_backend_by_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "toy_backend.py").write_text(
        textwrap.dedent(
            """\
            from lhtb.sandbox.local import LocalBackend

            class ToyBackend(LocalBackend):
                name = "toy"

            NotABackend = object
            """
        )
    )
    dist = tmp_path / "toy_backend-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-backend\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[lhtb.backends]\ntoy = toy_backend:ToyBackend\nbroken = toy_backend:NotABackend\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "toy" in registry.available_backends()
    backend = registry.resolve_backend("toy")
    assert type(backend).__name__ == "ToyBackend"
    assert backend.name == "toy"
    with pytest.raises(BackendNotFoundError, match="not a SandboxBackend"):
        registry.resolve_backend("broken")
    with pytest.raises(BackendNotFoundError, match="toy"):
        registry.resolve_backend("no-such-backend")
    monkeypatch.delitem(sys.modules, "toy_backend", raising=False)
