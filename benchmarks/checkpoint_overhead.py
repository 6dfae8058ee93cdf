"""What hidden checkpoint grading costs the agent, on Docker and the local backend.

Run: python3 benchmarks/checkpoint_overhead.py [--backends docker,local] [--repeats N]
     [--parts pause,overhead] [--interval SEC] [--work-sec SEC]

For each backend, in one run:

* **capture pause**: the median and p99 of ``Checkpoint.capture_sec``, the time
  the agent's sandbox is frozen (and its calls held) for a capture, over the
  checkpoints of an episode with a 1-second interval, per isolation mode;
* **agent-time overhead**: an agent runs the same CPU-bound loop in its sandbox
  in episodes without checkpoints and with a short interval (``--interval``,
  default 2 s), alternately; the
  extra time per checkpoint (the pause, plus the background grading competing
  for the machine's cores) is scaled to a 10-minute interval and reported as a
  share of the agent's time, with the with/without ratio it comes from.

Targets (issue 20): pause <= 50 ms on Docker and <= 10 ms on local at the median;
<= 1% of agent time at a 10-minute interval.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import anyio

import lhtb
from lhtb.sandbox.registry import resolve_backend

TEN_MINUTES = 600.0
LOOP = "i=0; while [ $i -lt {n} ]; do i=$((i+1)); done"


def make_task(root: Path, isolation: lhtb.IsolationMode) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app && echo 1 > /app/answer.txt\n"
    )
    (root / "tests" / "test.sh").write_text("#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n")
    return lhtb.Task(
        name=f"bench-checkpoints-{isolation}",
        instruction="work",
        environment=lhtb.EnvironmentConfig(allow_internet=False, workdir="/app"),
        agent=lhtb.AgentConfig(timeout_sec=3600, continue_until_timeout=False),
        verifier=lhtb.VerifierConfig(isolation=isolation, timeout_sec=120),
        artifacts=(lhtb.Artifact("/app"),) if isolation is lhtb.IsolationMode.SEPARATE else (),
        environment_dir=root / "environment",
        tests_dir=root / "tests",
    )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


class Worker:
    """Runs the loop ``rounds`` times in its sandbox, timing each round; then returns."""

    def __init__(self, loop: str, rounds: int) -> None:
        self.loop = loop
        self.rounds = rounds
        self.seconds = 0.0

    async def run(self, turn: lhtb.Turn) -> None:
        clock = time.perf_counter()
        for _ in range(self.rounds):
            result = await turn.sandbox.exec(["sh", "-c", self.loop], timeout=600)
            assert result.ok, result
        self.seconds = time.perf_counter() - clock


async def episode(
    task: lhtb.Task, backend: str, out: Path, worker: Worker, interval: float | None
) -> lhtb.Episode:
    record = await lhtb.run_episode(
        task,
        worker,
        backend=resolve_backend(backend),
        output_dir=out,
        checkpoint_interval_sec=interval,
        progress="quiet",
    )
    assert record.error is None, record.error
    return record


async def pauses(backend: str, tmp: Path, repeats: int) -> dict[str, list[float]]:
    """Capture pauses per isolation mode, from episodes with a 1-second interval."""
    found: dict[str, list[float]] = {}
    for mode in lhtb.IsolationMode:
        task = make_task(tmp / f"task-{mode}", mode)
        samples: list[float] = []
        for run in range(repeats):
            worker = Worker("sleep 1", 8)
            record = await episode(task, backend, tmp / f"pause-{mode}-{run}", worker, 1.0)
            samples += [c.capture_sec for c in record.checkpoints if c.error is None]
        found[str(mode)] = samples
    return found


async def overhead(
    backend: str, tmp: Path, repeats: int, work_sec: float, interval: float
) -> dict[str, float]:
    """Agent time with and without checkpoints every ``interval`` s, alternating, in one run."""
    task = make_task(tmp / "task-overhead", lhtb.IsolationMode.SEPARATE)
    calibrate = Worker(LOOP.format(n=200_000), 1)
    await episode(task, backend, tmp / "calibrate", calibrate, None)
    rounds = 10
    n = max(10_000, int(200_000 * work_sec / rounds / max(calibrate.seconds, 1e-3)))
    without, with_, taken = [], [], []
    for run in range(repeats):
        plain = Worker(LOOP.format(n=n), rounds)
        await episode(task, backend, tmp / f"plain-{run}", plain, None)
        without.append(plain.seconds)
        checked = Worker(LOOP.format(n=n), rounds)
        record = await episode(task, backend, tmp / f"checked-{run}", checked, interval)
        with_.append(checked.seconds)
        taken.append(len(record.checkpoints))
    base, loaded = statistics.median(without), statistics.median(with_)
    per_checkpoint = max(0.0, loaded - base) / max(1.0, statistics.median(taken))
    return {
        "agent_sec_without": base,
        "agent_sec_with": loaded,
        "checkpoints": statistics.median(taken),
        "extra_per_checkpoint_sec": per_checkpoint,
        "overhead_at_10min": per_checkpoint / TEN_MINUTES,
    }


async def measure(
    backends: list[str], repeats: int, work_sec: float, interval: float, parts: set[str]
) -> None:
    print(f"## Checkpoint overhead ({repeats} repeats)\n")
    print("| backend | measure | value |")
    print("|---|---|---|")
    for backend in backends:
        with tempfile.TemporaryDirectory() as name:
            tmp = Path(name)
            found = await pauses(backend, tmp, repeats) if "pause" in parts else {}
            for mode, samples in found.items():
                print(
                    f"| {backend} | capture pause, `{mode}` ({len(samples)} checkpoints) | "
                    f"median {ms(statistics.median(samples))}, p99 {ms(p99(samples))} |"
                )
            if "overhead" not in parts:
                continue
            figures = await overhead(backend, tmp, repeats, work_sec, interval)
        ratio = figures["agent_sec_with"] / figures["agent_sec_without"]
        print(
            f"| {backend} | agent time without / with checkpoints every {interval:g} s "
            f"({figures['checkpoints']:.0f} taken) | {figures['agent_sec_without']:.2f} s / "
            f"{figures['agent_sec_with']:.2f} s (ratio {ratio:.3f}) |"
        )
        print(
            f"| {backend} | extra agent time per checkpoint (pause + background grading) | "
            f"{ms(figures['extra_per_checkpoint_sec'])} |"
        )
        print(
            f"| {backend} | agent-time overhead at a 10-minute interval | "
            f"{figures['overhead_at_10min']:.3%} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backends", default="docker,local")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work-sec", type=float, default=30.0, help="agent work per episode")
    parser.add_argument("--interval", type=float, default=2.0, help="for the overhead part")
    parser.add_argument("--parts", default="pause,overhead")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    anyio.run(measure, args.backends.split(","), args.repeats, args.work_sec, args.interval, parts)


if __name__ == "__main__":
    main()
