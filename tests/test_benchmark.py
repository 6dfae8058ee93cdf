"""Benchmark sweeps on real Docker: parallel runs, retries, resume after a kill, gates."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

import lhtb
from lhtb.bench import Backoff
from lhtb.cli import main
from lhtb.errors import RunConfigChangedError, SandboxError
from lhtb.gates import check_tasks
from lhtb.sandbox.base import ManagedSandbox, SandboxSpec
from lhtb.sandbox.docker import DockerBackend

pytestmark = [pytest.mark.docker, pytest.mark.anyio]

# The scorecard: a public "format" subtask anyone passes (weight 1) and the answer (weight 3).
TEST_SH = """#!/bin/sh
if [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; then s=1; else s=0; fi
printf '{"subtasks": [{"name": "format", "score": 1, "visibility": "public"},
  {"name": "answer", "score": %s, "weight": 3}]}' "$s" > /logs/verifier/scorecard.json
"""
NOP_REWARD = 0.25


def write_task(root: Path, name: str, *, test_sh: str = TEST_SH) -> Path:
    """A tiny shared-isolation task: write 42 to /app/answer.txt."""
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "solution").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app\nWORKDIR /app\n"
    )
    (root / "tests" / "test.sh").write_text(test_sh)
    (root / "solution" / "solve.sh").write_text("#!/bin/sh\necho 42 > /app/answer.txt\n")
    (root / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            schema_version = "1.1"
            [task]
            name = "test/{name}"
            [metadata]
            category = "{"even" if name[-1] in "02468" else "odd"}"
            [environment]
            memory_mb = 256
            [agent]
            timeout_sec = 60
            [verifier]
            timeout_sec = 30
            """
        )
    )
    return root


def write_tasks(root: Path, count: int) -> Path:
    for i in range(count):
        write_task(root / f"tiny-{i}", f"tiny-{i}")
    return root


def containers_of(docker_client: Any, run_id: str) -> list[str]:
    found = docker_client.containers.list(all=True, filters={"label": f"lhtb.run={run_id}"})
    return [c.name for c in found]


def records(run_dir: Path) -> dict[str, lhtb.Episode]:
    return {p.parent.name: lhtb.Episode.load(p) for p in run_dir.glob("*/episode.json")}


@pytest.fixture(scope="module")
def backend() -> DockerBackend:
    return DockerBackend()


async def test_sweep_of_tasks_agents_and_attempts(
    backend: DockerBackend, tmp_path: Path, docker_client: Any
) -> None:
    tasks = lhtb.load_tasks(write_tasks(tmp_path / "tasks", 3))
    out = tmp_path / "run"
    result = await lhtb.run_benchmark(
        tasks,
        ["oracle", "nop"],
        attempts=2,
        concurrency=4,
        output_dir=out,
        backend=backend,
        stagger_sec=0.05,
    )
    assert len(result.episodes) == 12
    assert result.tries == 12
    assert result.concurrency == 4
    by_agent = {
        agent: sorted(
            (e.config.task_name, e.attempt, e.reward)
            for e in result.episodes
            if e.config.agent == agent
        )
        for agent in ("oracle", "nop")
    }
    names = [t.name for t in tasks]
    assert by_agent["oracle"] == sorted((n, a, 1.0) for n in names for a in (1, 2))
    assert by_agent["nop"] == sorted((n, a, NOP_REWARD) for n in names for a in (1, 2))
    assert sorted(records(out)) == sorted(
        f"test-tiny-{i}__{agent}__{a}"
        for i in range(3)
        for agent in ("oracle", "nop")
        for a in (1, 2)
    )
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["config"]["attempts"] == 2
    assert sorted(manifest["config"]["tasks"]) == sorted(names)
    assert containers_of(docker_client, result.run_id) == []

    board = result.leaderboard()
    assert [(r.agent, r.mean_reward, r.solved_rate) for r in board.rows] == [
        ("oracle", 1.0, 1.0),
        ("nop", NOP_REWARD, 0.0),
    ]
    assert board.rows[0].pass_at_k == {1: 1.0, 2: 1.0}
    assert board.rows[1].public_hidden_gap == pytest.approx(1.0)
    assert [r.mean_reward for r in lhtb.Leaderboard.from_dirs(out).rows] == [1.0, NOP_REWARD]

    # Rerunning into the directory skips everything; another configuration is refused.
    again = await lhtb.run_benchmark(
        tasks, ["oracle", "nop"], attempts=2, output_dir=out, backend=backend
    )
    assert (again.tries, again.resumed) == (0, 12)
    with pytest.raises(RunConfigChangedError, match=r"attempts: 2 -> 3"):
        await lhtb.run_benchmark(
            tasks, ["oracle", "nop"], attempts=3, output_dir=out, backend=backend
        )


class FlakyBackend(DockerBackend):
    """Docker, except that the first sandbox start fails like a daemon hiccup."""

    def __init__(self) -> None:
        super().__init__()
        self.failures_left = 1

    async def start(self, spec: SandboxSpec) -> ManagedSandbox:
        if spec.role == "agent" and self.failures_left:
            self.failures_left -= 1
            raise SandboxError("injected failure: the daemon did not answer")
        return await super().start(spec)


async def test_infra_error_is_retried_and_every_try_kept(
    tmp_path: Path, docker_client: Any
) -> None:
    tasks = lhtb.load_tasks(write_tasks(tmp_path / "tasks", 1))
    out = tmp_path / "run"
    result = await lhtb.run_benchmark(
        tasks,
        {"solver": "oracle"},
        output_dir=out,
        backend=FlakyBackend(),
        backoff=Backoff(initial_sec=0.2),
        stagger_sec=0,
    )
    assert result.tries == 2
    [episode] = result.episodes
    assert (str(episode.outcome), episode.reward, episode.config.agent) == ("solved", 1.0, "solver")
    saved = records(out)
    assert sorted(saved) == ["test-tiny-0__solver__1", "test-tiny-0__solver__1__retry1"]
    first = saved["test-tiny-0__solver__1"]
    assert first.outcome is lhtb.Outcome.INFRA_ERROR
    assert first.error is not None
    assert "injected failure" in first.error
    assert lhtb.Leaderboard.from_dirs(out).rows[0].mean_reward == 1.0
    assert containers_of(docker_client, result.run_id) == []


SWEEP_SCRIPT = """
import sys, anyio, lhtb

class SlowOracle:
    name = "slow"
    def __init__(self, task):
        self.inner = lhtb.agents.OracleAgent(task)
    async def run(self, turn):
        await anyio.sleep(2)
        await self.inner.run(turn)

tasks = lhtb.load_tasks(sys.argv[1])
try:
    lhtb.run_benchmark_sync(
        tasks, {"slow": SlowOracle, "nop": "nop"}, attempts=2, concurrency=2,
        output_dir=sys.argv[2], stagger_sec=0.05, progress="quiet",
    )
except lhtb.errors.LhtbError as exc:
    print(exc, file=sys.stderr)
    sys.exit(3)
"""


def start_sweep(tmp_path: Path, tasks: Path, out: Path) -> subprocess.Popen[bytes]:
    script = tmp_path / "sweep.py"
    script.write_text(SWEEP_SCRIPT)
    return subprocess.Popen(
        [sys.executable, str(script), str(tasks), str(out)],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "sweep.log").open("wb"),
    )


def wait_for_finished(out: Path, count: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, "the sweep ended before it could be interrupted"
        done = [e for e in records_safe(out).values() if e.finished]
        if len(done) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"fewer than {count} episodes finished in time")


def records_safe(out: Path) -> dict[str, lhtb.Episode]:
    found = {}
    for path in out.glob("*/episode.json"):
        try:
            found[path.parent.name] = lhtb.Episode.load(path)
        except lhtb.errors.EpisodeFormatError:
            continue
    return found


async def test_sigkilled_sweep_resumes_with_exactly_the_missing_episodes(
    tmp_path: Path, docker_client: Any
) -> None:
    tasks_dir = write_tasks(tmp_path / "tasks", 3)
    out = tmp_path / "run"
    process = start_sweep(tmp_path, tasks_dir, out)
    try:
        await anyio.to_thread.run_sync(wait_for_finished, out, 4, process)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    before = {name: e for name, e in records_safe(out).items() if e.finished}
    unfinished = sorted(set(records_safe(out)) - set(before))
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    assert 4 <= len(before) < 12

    class FastOracle:
        name = "slow"  # same name, same configuration: the agent code is not part of it

        def __init__(self, task: lhtb.Task) -> None:
            self.inner = lhtb.agents.OracleAgent(task)

        async def run(self, turn: lhtb.Turn) -> None:
            await self.inner.run(turn)

    try:
        result = await lhtb.run_benchmark(
            lhtb.load_tasks(tasks_dir),
            {"slow": FastOracle, "nop": "nop"},
            attempts=2,
            concurrency=4,
            output_dir=out,
            stagger_sec=0.05,
        )
    finally:  # should the resume fail, still remove what the killed process left
        orphans = containers_of(docker_client, run_id)
        await DockerBackend().cleanup(run_id)
    assert result.resumed == len(before)
    assert result.tries == 12 - len(before)
    assert len(result.episodes) == 12
    after = records_safe(out)
    for name, episode in before.items():
        assert after[name] == episode  # finished episodes were not run again
    for name in unfinished:
        assert not after[name].finished or after[name].outcome is lhtb.Outcome.CANCELLED
        assert f"{name}__retry1" in after  # the interrupted try stays, a new one ran
    rewards = sorted((e.config.agent, e.reward) for e in result.episodes)
    assert rewards == [("nop", NOP_REWARD)] * 6 + [("slow", 1.0)] * 6
    assert orphans == []  # the resume removed the killed process's containers first


async def test_sigterm_stops_cleanly_and_leaves_no_container(
    tmp_path: Path, docker_client: Any
) -> None:
    tasks_dir = write_tasks(tmp_path / "tasks", 3)
    out = tmp_path / "run"
    process = start_sweep(tmp_path, tasks_dir, out)
    try:
        await anyio.to_thread.run_sync(wait_for_finished, out, 2, process)
        process.send_signal(signal.SIGTERM)
        code = await anyio.to_thread.run_sync(lambda: process.wait(timeout=60))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    left = containers_of(docker_client, run_id)
    await DockerBackend().cleanup(run_id)
    assert left == []
    log = (tmp_path / "sweep.log").read_text()
    assert code == 3, log
    assert "stopped by SIGTERM" in log
    saved = records_safe(out)
    assert all(e.finished for e in saved.values())  # every record was closed
    cancelled = [e for e in saved.values() if e.outcome is lhtb.Outcome.CANCELLED]
    assert len(saved) - len(cancelled) >= 2
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["invocations"][-1]["signal"] == signal.SIGTERM


async def test_check_gates_oracle_and_nop(tmp_path: Path) -> None:
    """The nop agent must score below 0.05: the tiny task's free public check (0.25) is
    below its pass threshold and still fails the gate."""
    answer_only = (
        "#!/bin/sh\n"
        'if [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; then s=1; else s=0; fi\n'
        'echo "$s" > /logs/verifier/reward.txt\n'
    )
    good = write_task(tmp_path / "tasks" / "good", "good", test_sh=answer_only)
    leaky = write_task(tmp_path / "tasks" / "leaky", "leaky")
    checks = await check_tasks(
        [lhtb.load_task(good), lhtb.load_task(leaky)],
        output_dir=tmp_path / "check",
        stagger_sec=0.05,
    )
    by_name = {c.task: c for c in checks}
    assert by_name["test/good"].ok
    assert by_name["test/good"].problems == ()
    assert not by_name["test/leaky"].ok
    assert by_name["test/leaky"].oracle_passed
    [problem] = by_name["test/leaky"].problems
    assert problem.startswith(f"nop must get a reward below 0.05: unsolved, reward {NOP_REWARD}")
    nop = by_name["test/good"].nop
    assert nop is not None
    assert not nop.config.continue_until_timeout
    assert len(nop.passes) == 1

    # The command resumes the same runs (nothing to do) and fails on the leaky task.
    result = await anyio.to_thread.run_sync(
        lambda: CliRunner().invoke(
            main, ["check", str(good), str(leaky), "--out", str(tmp_path / "check"), "--quiet"]
        )
    )
    assert result.exit_code == 1, result.output
    assert "1/2 tasks pass every gate" in result.output
    assert "FAIL test/leaky: nop must get a reward below 0.05" in result.output
