"""Benchmark sweeps on a real Ray cluster (a head and two worker nodes on this machine).

The nodes are separate ``ray start`` processes with their own temp dirs and
ports; all of them use this machine's Docker daemon. Without ``ray`` these
tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

import lhtb
from conftest import IN_CI
from lhtb.cli import main
from lhtb.sandbox.docker import DockerBackend
from test_benchmark import (
    NOP_REWARD,
    containers_of,
    records,
    records_safe,
    wait_for_finished,
    write_tasks,
)

HELPERS = Path(__file__).parent / "ray_helpers"
sys.path.insert(0, str(HELPERS))

from ray_helpers.cluster import RayCluster, new_cluster  # noqa: E402

SECRET = "sk-lhtb-test-7f3a9c0e41d2b865"  # a fake API key that must never reach the run dir
KEYED = "lhtb_ray_test_agents:SlowKeyedOracle"


def _ray_or_fail() -> None:
    if importlib.util.find_spec("ray") is None:
        message = "ray is not installed (pip install 'lhtb[ray]')"
        if IN_CI:
            pytest.fail(f"{message}, and CI=true: the Ray tests must run in CI")
        pytest.skip(message)


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayCluster]:
    _ray_or_fail()
    running = new_cluster()
    try:
        running.start(workers=2, slots=2)
        yield running
    finally:
        running.stop()


@pytest.fixture
def ray_driver(cluster: RayCluster) -> Iterator[RayCluster]:
    """The cluster, with no driver connection left over between tests."""
    import ray

    yield cluster
    if ray.is_initialized():
        ray.shutdown()


TIMED = {"mean_time_sec", "mean_auc", "reward_at_percent"}
"""Leaderboard figures measured on the clock (when rewards came), which differ run to run."""


def comparable(board: lhtb.Leaderboard) -> list[dict[str, Any]]:
    """Leaderboard rows without the figures that depend on timing."""
    rows = []
    for row in board.to_dict()["rows"]:
        rows.append({k: v for k, v in row.items() if k not in TIMED})
    return rows


@pytest.mark.docker
@pytest.mark.anyio
async def test_ray_sweep_leaderboard_equals_local(
    ray_driver: RayCluster, tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks_dir = write_tasks(tmp_path / "tasks", 3)
    tasks = lhtb.load_tasks(tasks_dir)
    local = await lhtb.run_benchmark(
        tasks,
        ["oracle", "nop"],
        attempts=2,
        concurrency=4,
        output_dir=tmp_path / "local",
        backend="docker",
        stagger_sec=0.05,
    )

    # The same sweep through `lhtb run --executor ray`, the cluster found by $RAY_ADDRESS.
    out = tmp_path / "ray"
    monkeypatch.setenv("RAY_ADDRESS", ray_driver.address)
    args = ["run", str(tasks_dir), "--agent", "oracle", "--agent", "nop", "--attempts", "2"]
    args += ["--executor", "ray", "--backend", "docker", "--stagger", "0.05", "--quiet"]
    args += ["--out", str(out)]
    result = await anyio.to_thread.run_sync(lambda: CliRunner().invoke(main, args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert "oracle" in result.output
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["invocations"][-1]["tries"] == 12
    saved = records(out)
    assert len(saved) == 12
    assert sorted(saved) == sorted(p.parent.name for p in (tmp_path / "local").glob("*/*.json"))
    board = lhtb.Leaderboard.from_dirs(out)
    assert comparable(board) == comparable(local.leaderboard())
    assert [(r.agent, r.mean_reward) for r in board.rows] == [
        ("oracle", 1.0),
        ("nop", NOP_REWARD),
    ]
    for name, episode in saved.items():  # each record came back with its directory
        assert episode.finished
        assert (out / name / "events.jsonl").is_file()
        assert any((out / name).glob("verifier*/**/*")), name
    assert containers_of(docker_client, manifest["run_id"]) == []


DRIVER_SCRIPT = """
import sys, lhtb
executor = lhtb.RayExecutor(address=sys.argv[3], env_vars={"LHTB_FAKE_API_KEY": sys.argv[4]})
lhtb.run_benchmark_sync(
    lhtb.load_tasks(sys.argv[1]), {"keyed": "lhtb_ray_test_agents:SlowKeyedOracle"},
    attempts=2, concurrency=4, output_dir=sys.argv[2], backend="docker",
    executor=executor, stagger_sec=0.05, progress="quiet",
)
"""


@pytest.mark.docker
@pytest.mark.anyio
async def test_killed_driver_resumes_like_a_local_run(
    ray_driver: RayCluster, tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HELPERS))
    tasks_dir = write_tasks(tmp_path / "tasks", 3)
    out = tmp_path / "run"
    script = tmp_path / "driver.py"
    script.write_text(DRIVER_SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HELPERS), *sys.path])}
    with (tmp_path / "driver.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, str(script), str(tasks_dir), str(out), ray_driver.address, SECRET],
            stdout=log,
            stderr=log,
            env=env,
        )
        try:
            await anyio.to_thread.run_sync(wait_for_finished, out, 1, process)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
    before = {name: e for name, e in records_safe(out).items() if e.finished}
    started = sorted(p.name for p in out.iterdir() if p.is_dir())
    unfinished = sorted(set(started) - set(before))
    assert 1 <= len(before) < 6
    assert unfinished, "every episode had finished before the driver was killed"

    result = await lhtb.run_benchmark(
        lhtb.load_tasks(tasks_dir),
        {"keyed": KEYED},
        attempts=2,
        output_dir=out,
        backend="docker",
        executor=lhtb.RayExecutor(
            address=ray_driver.address, env_vars={"LHTB_FAKE_API_KEY": SECRET}
        ),
        stagger_sec=0.05,
    )
    assert result.resumed == len(before)
    assert result.tries == 6 - len(before)
    assert [(e.outcome, e.reward) for e in result.episodes] == [(lhtb.Outcome.SOLVED, 1.0)] * 6
    after = records_safe(out)
    for name, episode in before.items():
        assert after[name] == episode  # finished episodes were not run again
    for name in unfinished:
        assert f"{name}__retry1" in after  # the interrupted try stays, a new one ran
    assert containers_of(docker_client, result.run_id) == []


def wait_for_mark(marks: Path, node: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.name.startswith(f"{node}-") for p in marks.iterdir()):
            return
        time.sleep(0.1)
    raise AssertionError(f"no episode started on {node} within {timeout}s")


@pytest.mark.docker
@pytest.mark.anyio
async def test_killed_worker_node_episodes_are_retried_and_keys_stay_out(
    ray_driver: RayCluster, tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HELPERS))  # the driver loads the agent spec too
    tasks = lhtb.load_tasks(write_tasks(tmp_path / "tasks", 2))
    out = tmp_path / "run"
    executor = lhtb.RayExecutor(address=ray_driver.address, env_vars={"LHTB_FAKE_API_KEY": SECRET})
    killed: list[int] = []
    for mark in ray_driver.marks.iterdir():  # markers of earlier tests' episodes
        mark.unlink()

    async def kill_w1_once_busy() -> None:
        await anyio.to_thread.run_sync(wait_for_mark, ray_driver.marks, "w1")
        killed.extend(ray_driver.kill_node("w1"))

    async with anyio.create_task_group() as group:
        group.start_soon(kill_w1_once_busy)
        result = await lhtb.run_benchmark(
            tasks,
            {"keyed": KEYED},
            attempts=2,
            output_dir=out,
            backend="docker",
            executor=executor,
            retries=2,
            backoff=lhtb.Backoff(initial_sec=0.5),
            stagger_sec=0.05,
        )
    assert killed, "w1 had no processes to kill"
    assert result.concurrency == 4
    # Every slot ends solved (so the key reached the workers) despite the lost node.
    assert [(e.outcome, e.reward) for e in result.episodes] == [(lhtb.Outcome.SOLVED, 1.0)] * 4
    saved = records(out)
    lost = {name: e for name, e in saved.items() if e.outcome is lhtb.Outcome.INFRA_ERROR}
    assert lost, sorted((n, str(e.outcome)) for n, e in saved.items())
    for name, episode in lost.items():
        assert episode.error is not None
        assert "Ray task running this episode failed" in episode.error
        retry = int(name.rsplit("__retry", 1)[1]) if "__retry" in name else 0
        base = name.split("__retry")[0]
        assert saved[f"{base}__retry{retry + 1}"].finished  # retried, every try kept
    assert result.tries == 4 + len(lost)
    assert lhtb.Leaderboard.from_dirs(out).rows[0].solved_rate == 1.0

    # The key was in the workers' environment only: no file of the run holds it.
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path

    # Nothing is left on the killed node (its Docker daemon is this machine's) after cleanup.
    run_id = result.run_id
    cleaned = await anyio.to_thread.run_sync(
        lambda: CliRunner().invoke(main, ["cleanup", "--backend", "docker", "--run-dir", str(out)])
    )
    assert cleaned.exit_code == 0, cleaned.output
    assert containers_of(docker_client, run_id) == []
    await DockerBackend().cleanup(run_id)


def test_ray_executor_without_ray_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(lhtb.RayNotInstalledError, match=r"pip install 'lhtb\[ray\]'"):
        lhtb.RayExecutor()
    tasks = write_tasks(tmp_path / "tasks", 1)
    args = ["run", str(tasks), "--executor", "ray", "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "needs the 'ray' package" in result.output
    assert "pip install 'lhtb[ray]'" in result.output
    assert not (tmp_path / "run").exists()  # refused before anything ran


def test_executor_option_is_checked() -> None:
    from lhtb.cli.run import parse_executor

    assert isinstance(parse_executor("local"), lhtb.InProcessExecutor)
    with pytest.raises(Exception, match="use local, ray, or ray://HOST:PORT"):
        parse_executor("dask")
    if importlib.util.find_spec("ray"):
        made = parse_executor("ray://head:10001", ("MY_KEY",))
        assert isinstance(made, lhtb.RayExecutor)
        assert made.address == "ray://head:10001"
        assert "MY_KEY" in made.forward_env
