"""Hidden checkpoint grading on the in-memory FakeBackend and a virtual clock.

Scheduling, skipping, never overlapping and invisibility are exact here: the
budget clock is the loop's virtual clock. Real freezing and capture atomicity
are tested on Docker and the local backend in tests/test_checkpoints.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

import lhtb
from lhtb.agents import NopAgent
from lhtb.episode._turn_gate import GatedSandbox
from lhtb.errors import LhtbError
from lhtb.testing import FakeBackend, FakeCall, ScriptedPass, fake_task, virtual_clock_backend

pytestmark = pytest.mark.anyio

PROGRESS = "/app/progress.txt"
Events = list[tuple[str, dict[str, Any]]]


@pytest.fixture
def anyio_backend() -> tuple[str, dict[str, object]]:
    return virtual_clock_backend()


def progress(files: Mapping[str, bytes]) -> float:
    """The fake tests: the reward is the number in the progress file."""
    return float(files.get(PROGRESS, b"0").decode() or 0)


async def run(
    task: lhtb.Task, agent: Any, backend: FakeBackend, tmp_path: Path, **settings: Any
) -> tuple[lhtb.Episode, Events]:
    events: Events = []
    episode = await lhtb.run_episode(
        task,
        agent,
        backend=backend,
        output_dir=tmp_path / "episode",
        on_event=lambda name, fields: events.append((name, fields)),
        **settings,
    )
    return episode, events


class Stepper:
    """Improves in steps; after each step it waits until a grading has seen that step.

    The marker is the test's, not the agent's: ``seen`` is set by the fake tests
    when they grade a state, so the agent moves on only after a checkpoint
    captured its step (an agent does not know about checkpoints; this test does).
    """

    def __init__(self, steps: list[str], seen: dict[str, anyio.Event]) -> None:
        self.steps = steps
        self.seen = seen
        self.turns: list[lhtb.Turn] = []

    async def run(self, turn: lhtb.Turn) -> None:
        self.turns.append(turn)
        for value in self.steps:
            await turn.sandbox.write_file(PROGRESS, value)
            await self.seen[value].wait()


def marking(seen: dict[str, anyio.Event]) -> Any:
    def grade(files: Mapping[str, bytes]) -> float:
        value = files.get(PROGRESS, b"0").decode()
        if value in seen:
            seen[value].set()
        return progress(files)

    return grade


def agent_operations(backend: FakeBackend) -> list[FakeCall]:
    sandbox = backend.agent_sandbox
    return [c for c in backend.calls if c.sandbox == sandbox.id]


@pytest.mark.parametrize("isolation", ["separate", "snapshot", "shared"])
async def test_an_agent_improving_in_steps_gets_a_monotone_curve(
    tmp_path: Path, isolation: str
) -> None:
    steps = ["0.25", "0.5", "0.75"]
    seen = {value: anyio.Event() for value in steps}
    backend = FakeBackend([marking(seen)])
    artifacts = ["/app"] * (isolation == "separate")
    task = fake_task(
        tmp_path,
        budget=1000,
        isolation=isolation,
        artifacts=artifacts,
        continue_until_timeout=False,
    )
    agent = Stepper(steps, seen)
    episode, events = await run(task, agent, backend, tmp_path, checkpoint_interval_sec=100)

    assert episode.config.checkpoint_interval_sec == 100
    assert [(c.number, c.elapsed_sec, c.reward) for c in episode.checkpoints] == [
        (1, 100.0, 0.25),
        (2, 200.0, 0.5),
        (3, 300.0, 0.75),
    ]
    assert all(c.error is None and c.scorecard is not None for c in episode.checkpoints)
    # The agent returned right after the third step was seen: its stop is the final pass.
    assert [(p.elapsed_sec, p.reward, p.final) for p in episode.passes] == [(300.0, 0.75, True)]
    assert lhtb.reward_curve(episode) == [
        (0.0, 0.0),
        (100.0, 0.25),
        (200.0, 0.5),
        (300.0, 0.75),
        (300.0, 0.75),
    ]
    assert episode.checkpoints_skipped == 0
    assert all(c.log_dir == f"verifier/checkpoint-{c.number:03d}" for c in episode.checkpoints)
    folders = [tmp_path / "episode" / str(c.log_dir) for c in episode.checkpoints]
    assert all((folder / "reward.txt").is_file() for folder in folders)
    # Every checkpoint graded the episode's seed, in a verifier sandbox of its own.
    assert {env["LHTB_SEED"] for env in backend.tests_env} == {str(episode.config.seed)}
    roles = [s.spec.role for s in backend.sandboxes]
    assert roles == ["agent"] + ["verifier"] * (3 + (isolation != "shared"))
    assert "checkpoint_captured" in [name for name, _ in events]
    # What a capture took from the agent's sandbox, and nothing else (no test ever ran in it
    # during a turn): freeze, export or snapshot, thaw.
    capture = "export" if isolation == "separate" else "snapshot"
    operations = [c.operation for c in agent_operations(backend)]
    assert operations[1 : 1 + 3 * 4] == ["write_file", "freeze", capture, "thaw"] * 3
    assert lhtb.Episode.load(tmp_path / "episode" / "episode.json") == episode


async def test_checkpoints_are_invisible_to_the_agent(tmp_path: Path) -> None:
    """No feedback, no extra turn, no file in its sandbox, and its budget untouched."""
    backend = FakeBackend([progress], files={"/etc/hostname": "fake"})

    class Worker:
        def __init__(self) -> None:
            self.turns: list[lhtb.Turn] = []
            self.listing: list[set[str]] = []

        async def run(self, turn: lhtb.Turn) -> None:
            self.turns.append(turn)
            for step in range(1, 10):
                await turn.sandbox.write_file(PROGRESS, f"0.{step}")
                await anyio.sleep(100)
                self.listing.append(set(backend.agent_sandbox.files))
            await anyio.sleep(1000)

    worker = Worker()
    task = fake_task(tmp_path, budget=1000, continue_until_timeout=False)
    episode, _ = await run(task, worker, backend, tmp_path, checkpoint_interval_sec=130)
    # At 130, 260, ... 910 of the budget clock; the agent writes 0.1 at 0, 0.2 at 100, ...
    assert [c.elapsed_sec for c in episode.checkpoints] == [130.0 * n for n in range(1, 8)]
    assert [c.reward for c in episode.checkpoints] == [0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    assert [(t.number, t.feedback) for t in worker.turns] == [(1, None)]
    assert len(episode.turns) == 1
    assert episode.turns[0].end is lhtb.episode.TurnEnd.DEADLINE  # it had the whole budget
    assert all(files == {"/etc/hostname", PROGRESS} for files in worker.listing)
    assert (episode.passes[-1].elapsed_sec, episode.reward) == (1000.0, 0.9)


async def test_grading_never_overlaps_and_a_due_checkpoint_is_skipped(tmp_path: Path) -> None:
    """Each grading takes 250 s; due every 100 s, two of every three are skipped."""
    backend = FakeBackend([ScriptedPass(reward=0.5, seconds=250)])

    async def idle(turn: lhtb.Turn) -> None:
        await anyio.sleep(2000)

    task = fake_task(tmp_path, budget=1000, continue_until_timeout=False, verifier_timeout_sec=900)
    episode, events = await run(task, idle, backend, tmp_path, checkpoint_interval_sec=100)
    # Taken at 100, 400, 700 (each grading ends 250 later); 200, 300, 500, 600, 800, 900 skipped.
    assert [c.elapsed_sec for c in episode.checkpoints] == [100.0, 400.0, 700.0]
    assert episode.checkpoints_skipped == 6
    assert [name for name, _ in events].count("checkpoint_skipped") == 6
    # The tests of each grading started only after the previous grading's 250 s were over.
    tests = [c.time for c in backend.calls if c.operation == "tests"]
    assert tests == [100.0, 400.0, 700.0, 1000.0]  # three checkpoints, then the final pass


async def test_a_checkpoint_due_during_a_pass_is_not_taken(tmp_path: Path) -> None:
    """Turns of 40 s, passes of 300 s: of the times due (100, 200, ... 900) only 700
    falls in a turn (680-720); the passes grade the states of the others."""
    backend = FakeBackend([ScriptedPass(reward=0.0, seconds=300)])

    async def brief(turn: lhtb.Turn) -> None:
        await anyio.sleep(40)

    task = fake_task(tmp_path, budget=1000)
    episode, _ = await run(task, brief, backend, tmp_path, checkpoint_interval_sec=100)
    assert [p.elapsed_sec for p in episode.passes] == [40.0, 380.0, 720.0]
    assert [c.elapsed_sec for c in episode.checkpoints] == [700.0]
    assert episode.checkpoints_skipped == 0
    operations = [
        c.operation for c in agent_operations(backend) if c.operation in {"freeze", "thaw"}
    ]
    assert operations == ["freeze", "thaw"] * 4  # never frozen twice


async def test_a_failed_grading_costs_the_checkpoint_not_the_episode(tmp_path: Path) -> None:
    backend = FakeBackend([1.0])

    async def late(turn: lhtb.Turn) -> None:
        # The next sandbox started is the first checkpoint's verifier sandbox.
        backend.fail("start", lhtb.errors.SandboxError("daemon hiccup"))
        await anyio.sleep(150)
        await turn.sandbox.write_file("/app/out.txt", "x")

    task = fake_task(tmp_path, budget=1000, isolation="snapshot", continue_until_timeout=False)
    episode, _ = await run(task, late, backend, tmp_path, checkpoint_interval_sec=100)
    assert (str(episode.outcome), episode.reward) == ("solved", 1.0)
    [checkpoint] = episode.checkpoints
    assert checkpoint.reward is None
    assert checkpoint.error is not None
    assert "daemon hiccup" in checkpoint.error


async def test_a_sandbox_left_frozen_ends_the_episode_as_an_infrastructure_error(
    tmp_path: Path,
) -> None:
    backend = FakeBackend([1.0])

    async def worker(turn: lhtb.Turn) -> None:
        backend.fail("thaw", lhtb.errors.SandboxError("thaw failed"))  # the capture's thaw
        await anyio.sleep(500)

    task = fake_task(tmp_path, budget=1000, continue_until_timeout=False)
    episode, events = await run(task, worker, backend, tmp_path, checkpoint_interval_sec=100)
    assert str(episode.outcome) == "infra_error"
    assert episode.error is not None
    assert "thaw failed" in episode.error
    assert "checkpoint_failed" in [name for name, _ in events]
    assert episode.checkpoints == ()  # the failed capture was not graded


@pytest.mark.parametrize("interval", [0, -5, float("inf")])
async def test_a_bad_interval_is_refused(tmp_path: Path, interval: float) -> None:
    with pytest.raises(LhtbError, match="positive number of seconds"):
        await run(
            fake_task(tmp_path),
            NopAgent(),
            FakeBackend(),
            tmp_path,
            checkpoint_interval_sec=interval,
        )


async def test_the_task_sets_the_interval(tmp_path: Path) -> None:
    task = fake_task(tmp_path, budget=300, continue_until_timeout=False)
    task = attrs.evolve(task, verifier=attrs.evolve(task.verifier, checkpoint_interval_sec=100))

    async def idle(turn: lhtb.Turn) -> None:
        await anyio.sleep(1000)

    episode, _ = await run(task, idle, FakeBackend([0.0]), tmp_path)
    assert episode.config.checkpoint_interval_sec == 100
    assert [c.elapsed_sec for c in episode.checkpoints] == [100.0, 200.0]


# -- the agent's sandbox handle during a capture --------------------------------------------------


class _Inner:
    """A sandbox whose writes finish only when told to."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.release_write = anyio.Event()

    async def exec(self, command: Any, **kwargs: Any) -> Any:
        self.calls.append("exec")
        return None

    async def write_file(self, path: str, data: Any, *, mode: int | None = None) -> None:
        self.calls.append("write_started")
        await self.release_write.wait()
        self.calls.append("write_finished")


async def test_a_held_handle_makes_calls_wait_and_lets_writes_finish_first() -> None:
    inner = _Inner()
    gate = GatedSandbox(inner)  # type: ignore[arg-type]
    gate.open()
    order: list[str] = []
    async with anyio.create_task_group() as group:
        group.start_soon(gate.write_file, "/app/x", "data")
        await anyio.wait_all_tasks_blocked()
        assert inner.calls == ["write_started"]

        async def capture() -> None:
            async with gate.held():
                order.append("capture")
                group.start_soon(gate.exec, "true")
                await anyio.wait_all_tasks_blocked()
                order.append(f"calls during capture: {inner.calls.count('exec')}")

        group.start_soon(capture)
        await anyio.wait_all_tasks_blocked()
        assert order == []  # the capture waits for the write under way
        inner.release_write.set()
    assert order == ["capture", "calls during capture: 0"]
    assert inner.calls == ["write_started", "write_finished", "exec"]


async def test_run_benchmark_takes_checkpoints_and_records_the_interval(tmp_path: Path) -> None:
    class Idle:
        async def run(self, turn: lhtb.Turn) -> None:
            await anyio.sleep(250)

    task = fake_task(tmp_path / "task", budget=300, continue_until_timeout=False)
    result = await lhtb.run_benchmark(
        [task],
        {"idle": lambda task: Idle()},
        output_dir=tmp_path / "run",
        backend=FakeBackend([0.5]),
        checkpoint_interval_sec=100,
        stagger_sec=0,
        handle_signals=False,
    )
    [episode] = result.episodes
    assert episode.config.checkpoint_interval_sec == 100
    assert [(c.elapsed_sec, c.reward) for c in episode.checkpoints] == [(100.0, 0.5), (200.0, 0.5)]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["config"]["checkpoint_interval_sec"] == 100


def test_lhtb_run_takes_the_interval() -> None:
    from click.testing import CliRunner

    from lhtb.cli import main

    help_text = CliRunner().invoke(main, ["run", "--help"]).output
    assert "--checkpoint-every SEC" in help_text
    refused = CliRunner().invoke(main, ["run", "tasks", "--checkpoint-every", "0"])
    assert refused.exit_code == 2
    assert "--checkpoint-every" in refused.output
