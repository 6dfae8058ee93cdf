"""Harness overhead of benchmark runs: episodes per minute of a trivial task, and CPU per episode.

The task is as small as a Docker task gets (debian:bookworm-slim, shared
isolation, a one-line verifier) and the agent is ``nop``, so what is measured
is lhtb plus Docker: provisioning, the verifier pass, the records, teardown.
Starts are not staggered (``stagger_sec=0``); with the default 0.5 s stagger a
run cannot start more than 120 episodes a minute.

    python benchmarks/harness_overhead.py                # concurrency 1, 4, 8, 16
    python benchmarks/harness_overhead.py --levels 1 4 --episodes 8 --json

"CPU/episode" is the user + system time of this (the harness) process per
episode, including its worker threads; the Docker daemon and the containers
are not counted.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

import lhtb

TASK_TOML = """\
schema_version = "1.1"
[task]
name = "bench/trivial"
[environment]
memory_mb = 256
[agent]
timeout_sec = 60
[verifier]
timeout_sec = 30
"""


def write_task(root: Path) -> Path:
    """A trivial task: the verifier always gives 0.5."""
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    (root / "tests" / "test.sh").write_text("#!/bin/sh\necho 0.5 > /logs/verifier/reward.txt\n")
    (root / "instruction.md").write_text("Do nothing.\n")
    (root / "task.toml").write_text(TASK_TOML)
    return root


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measure(task: lhtb.Task, concurrency: int, episodes: int, out: Path) -> dict[str, Any]:
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = await lhtb.run_benchmark(
        [task],
        "nop",
        attempts=episodes,
        concurrency=concurrency,
        output_dir=out,
        stagger_sec=0,
        retries=0,
    )
    wall = time.perf_counter() - wall
    cpu = cpu_seconds() - cpu
    failed = sum(e.reward is None for e in result.episodes)
    mean_sec = sum(e.timings.total_sec for e in result.episodes) / episodes
    return {
        "concurrency": concurrency,
        "episodes": episodes,
        "failed": failed,
        "wall_sec": round(wall, 2),
        "episodes_per_min": round(episodes / wall * 60, 1),
        "mean_episode_sec": round(mean_sec, 2),
        "harness_cpu_sec_per_episode": round(cpu / episodes, 3),
    }


async def main(levels: list[int], episodes: int | None) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="lhtb-bench-") as tmp:
        root = Path(tmp)
        task = lhtb.load_task(write_task(root / "task"))
        await lhtb.run_benchmark([task], "nop", output_dir=root / "warmup", stagger_sec=0)
        results = []
        for level in levels:
            count = episodes or max(8, 2 * level)
            row = await measure(task, level, count, root / f"c{level}")
            print(json.dumps(row), file=sys.stderr)
            results.append(row)
        return results


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| concurrency | episodes | episodes/min | mean episode (s) | harness CPU/episode (s) |",
        "|---:|---:|---:|---:|---:|",
    ]
    lines.extend(
        f"| {r['concurrency']} | {r['episodes']} | {r['episodes_per_min']} | "
        f"{r['mean_episode_sec']} | {r['harness_cpu_sec_per_episode']} |"
        for r in rows
    )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--episodes", type=int, default=None, help="per level (default 2x, >= 8)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args()
    rows = anyio.run(main, args.levels, args.episodes)
    print(json.dumps(rows, indent=2) if args.json else markdown(rows))
