"""Hidden checkpoint grading on Docker and the local backend, in every isolation mode.

Kept small (CI time): one episode per backend and mode, whose agent improves in
steps while a process it started rewrites files without pause. Scheduling,
skipping and never overlapping are tested exactly on the fake backend
(tests/test_checkpoints_fake.py).

The agent knows when a checkpoint captured its state from the episode's
``checkpoint_captured`` events (the test's marker, not something agents are
given): a capture whose event arrives after a write has finished holds that write.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import anyio
import pytest

import lhtb
from lhtb.sandbox.base import SandboxBackend

pytestmark = pytest.mark.anyio

DOCKERFILE = "FROM debian:bookworm-slim\nRUN mkdir -p /app/c && echo 0 > /app/answer.txt\n"
# Two subtasks: "progress" is the number the agent left in /app/answer.txt; "atomic" is
# full marks when the counters /app/c/1..8 are one instant's state. A writer bumps them
# in order, so at any instant they read k..k, k-1..k-1 (or all k): a torn copy breaks it.
TEST_SH = """#!/bin/sh
prev=; first=; torn=0
for f in 1 2 3 4 5 6 7 8; do
  v=$(cat /app/c/$f 2>/dev/null || echo 0)
  [ -z "$first" ] && first=$v
  if [ -n "$prev" ] && { [ "$v" -gt "$prev" ] || [ "$v" -lt $((first - 1)) ]; }; then torn=1; fi
  prev=$v
done
cat > /logs/verifier/scorecard.json <<EOF
{"subtasks": [
  {"name": "progress", "score": $(cat /app/answer.txt), "visibility": "public"},
  {"name": "atomic", "score": $((1 - torn)), "visibility": "public", "message": "$first"}]}
EOF
"""
WRITER = (
    "i=0; while :; do i=$((i+1)); for f in 1 2 3 4 5 6 7 8; do "
    "echo $i > /app/c/$f.tmp && mv /app/c/$f.tmp /app/c/$f; done; done"
)
PS = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done 2>/dev/null"
STEPS = ["0.25", "0.5", "0.75"]


def make_task(root: Path, isolation: lhtb.IsolationMode) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (root / "tests").mkdir()
    (root / "tests" / "test.sh").write_text(TEST_SH)
    return lhtb.Task(
        name="test-checkpoints",
        instruction="make progress",
        environment=lhtb.EnvironmentConfig(allow_internet=False, workdir="/app"),
        agent=lhtb.AgentConfig(timeout_sec=300, continue_until_timeout=False),
        # Not live: the final pass freezes the writer too (a live pass would see it write).
        verifier=lhtb.VerifierConfig(isolation=isolation, timeout_sec=120, live=False),
        artifacts=(lhtb.Artifact("/app"),) if isolation is lhtb.IsolationMode.SEPARATE else (),
        environment_dir=root / "environment",
        tests_dir=root / "tests",
    )


class Captures:
    """Counts ``checkpoint_captured`` events; lets an agent wait for the next one."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = anyio.Event()

    def on_event(self, name: str, fields: dict[str, Any]) -> None:
        if name == "checkpoint_captured":
            self.count += 1
            self._changed.set()
            self._changed = anyio.Event()

    async def next(self) -> None:
        """Return after a capture that starts from now on."""
        seen = self.count
        while self.count <= seen:
            await self._changed.wait()


class Stepper:
    """Starts the writer, then improves in steps, each one captured before the next.

    The middle step is written by a command that was running during a capture (it
    must finish as if nothing happened). After each step's capture the agent looks
    around its sandbox while that capture is graded.
    """

    def __init__(self, captures: Captures) -> None:
        self.captures = captures
        self.listings: list[str] = []
        self.processes: list[str] = []
        self.feedback: list[str | None] = []
        self.in_flight: list[lhtb.ExecResult] = []

    async def run(self, turn: lhtb.Turn) -> None:
        self.feedback.append(turn.feedback)
        sandbox = turn.sandbox
        await sandbox.exec(["sh", "-c", f"nohup sh -c '{WRITER}' >/dev/null 2>&1 &"])
        for value in STEPS:
            if value == STEPS[1]:
                await self.write_across_a_capture(sandbox, value)
            else:
                await sandbox.write_file("/app/answer.txt", value)
            await self.captures.next()
            self.listings.append((await sandbox.exec("ls -a / /logs 2>&1")).stdout_text)
            self.processes.append((await sandbox.exec(["sh", "-c", PS])).stdout_text)

    async def write_across_a_capture(self, sandbox: lhtb.Sandbox, value: str) -> None:
        script = (
            "touch /tmp/started; while [ ! -e /tmp/go ]; do sleep 0.05; done; "
            f"echo {value} > /app/answer.txt"
        )

        async def command() -> None:
            self.in_flight.append(await sandbox.exec(["sh", "-c", script], timeout=120))

        async with anyio.create_task_group() as group:
            group.start_soon(command)
            while not (await sandbox.exec("test -e /tmp/started")).ok:
                await anyio.sleep(0.05)  # polling for the marker, not ordering by time
            await self.captures.next()  # taken while the command runs
            await sandbox.write_file("/tmp/go", "")


def subtasks(checkpoint: lhtb.Checkpoint) -> dict[str, lhtb.Subtask]:
    assert checkpoint.scorecard is not None, checkpoint
    return {s.name: s for s in checkpoint.scorecard.subtasks}


@pytest.mark.parametrize("isolation", list(lhtb.IsolationMode))
async def test_checkpoints_grade_each_step_atomically_and_unseen(
    tmp_path: Path, sandbox_backend: SandboxBackend, isolation: lhtb.IsolationMode
) -> None:
    task = make_task(tmp_path / "task", isolation)
    captures = Captures()
    agent = Stepper(captures)
    episode = await lhtb.run_episode(
        task,
        agent,
        backend=sandbox_backend,
        output_dir=tmp_path / "episode",
        on_event=captures.on_event,
        checkpoint_interval_sec=0.5,
        seed=7,
    )
    assert episode.error is None
    cards = [subtasks(c) for c in episode.checkpoints]

    # Improving in steps: one capture per step (on a loaded machine also one before the
    # first write or after the last: the same states again), and a monotone curve.
    progress = [p for p, _ in itertools.groupby(card["progress"].score for card in cards)]
    assert [p for p in progress if p] == [0.25, 0.5, 0.75], cards
    rewards = [reward for _, reward in lhtb.reward_curve(episode)]
    assert rewards == sorted(rewards)
    assert episode.reward == 0.875  # the final pass: 0.75, untorn
    assert all(c.capture_sec > 0 for c in episode.checkpoints)

    # The writer never stopped, yet no capture was torn.
    assert [card["atomic"].score for card in cards] == [1.0] * len(cards), cards
    counters = [int(str(card["atomic"].message)) for card in cards]
    assert counters == sorted(counters)
    assert counters[-1] > counters[0], counters  # it ran on between captures

    # Unseen: no tests, verifier logs or test process in the agent's sandbox while the
    # captures were graded, the writer undisturbed, no feedback.
    assert len(agent.listings) == len(agent.processes) == len(STEPS)
    assert all("tests" not in text.split() and "verifier" not in text for text in agent.listings)
    assert all("test.sh" not in text for text in agent.processes)
    assert all(f"sh -c {WRITER}" in text for text in agent.processes)
    assert agent.feedback == [None]
    assert [r.exit_code for r in agent.in_flight] == [0]  # a command across a capture

    # Each step's checkpoint reward is what grading that state directly gives.
    stepped = [
        r
        for r, card in zip((c.reward for c in episode.checkpoints), cards, strict=True)
        if card["progress"].score
    ]
    async with lhtb.open_sandbox(task, backend=sandbox_backend) as sandbox:
        verifier = lhtb.Verifier(task, sandbox_backend, seed=7, output_dir=tmp_path / "direct")
        direct = []
        for value in STEPS:
            await sandbox.write_file("/app/answer.txt", value)
            direct.append((await verifier.grade(sandbox)).reward)
    assert direct == [r for r, _ in itertools.groupby(stepped)]


async def test_captures_between_commands_starting_back_to_back(
    tmp_path: Path, local_backend: SandboxBackend
) -> None:
    """The local init forks each command; a freeze between its fork and its exec holds
    the init until the thaw. Captures while the agent starts commands without pause
    must neither hang nor fail (the freeze is retried until the init answers)."""
    task = make_task(tmp_path / "task", lhtb.IsolationMode.SEPARATE)
    captures = Captures()
    started: list[int] = []

    async def busy(turn: lhtb.Turn) -> None:
        async def commands() -> None:
            while True:
                assert (await turn.sandbox.exec(["true"])).ok
                started.append(1)

        async with anyio.create_task_group() as group:
            group.start_soon(commands)
            group.start_soon(commands)
            for _ in range(6):
                await captures.next()
            group.cancel_scope.cancel()

    episode = await lhtb.run_episode(
        task,
        busy,
        backend=local_backend,
        output_dir=tmp_path / "episode",
        on_event=captures.on_event,
        checkpoint_interval_sec=0.2,
    )
    assert episode.error is None
    assert len(episode.checkpoints) >= 6
    assert [c.error for c in episode.checkpoints] == [None] * len(episode.checkpoints)
    assert len(started) > 6
