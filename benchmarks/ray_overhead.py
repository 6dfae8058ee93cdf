"""Executor overhead of Ray: the same sweep run in-process and on a Ray cluster.

Both runs use this machine's Docker daemon, the same trivial task and ``nop``
agent (see ``harness_overhead.py``), the same concurrency and no stagger, so
the difference in wall time is what the Ray executor adds: submitting the Ray
task, a worker process picking it up, the task unpacked on the node, the
episode directory packed, shipped back and unpacked on the driver.

    python benchmarks/ray_overhead.py                       # starts a head + 2 workers here
    python benchmarks/ray_overhead.py --address HOST:6379   # an existing cluster
    python benchmarks/ray_overhead.py --episodes 16 --concurrency 4 --json

"Overhead per episode" is ``(ray wall - local wall) x concurrency / episodes``:
the slot-seconds each episode costs on top of a local run. Both executors
first run a warm-up sweep (image build). The split: for each Ray episode, the
driver's round trip minus the episode's own duration; its median is the warm
per-episode cost, its maximum a cold start (every ``run_benchmark`` is a new
Ray job, whose worker processes start and import lhtb on first use).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from harness_overhead import write_task

import lhtb

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


class TimedRayExecutor(lhtb.RayExecutor):
    """The Ray executor, noting each episode's round trip minus its own duration."""

    extra_sec: list[float]

    async def run(self, job: lhtb.EpisodeJob, on_event: Any) -> lhtb.Episode:
        started = time.perf_counter()
        episode = await super().run(job, on_event)
        self.extra_sec.append(time.perf_counter() - started - episode.timings.total_sec)
        return episode


async def sweep(
    task: lhtb.Task, episodes: int, concurrency: int, out: Path, executor: Any
) -> dict[str, Any]:
    wall = time.perf_counter()
    result = await lhtb.run_benchmark(
        [task],
        "nop",
        attempts=episodes,
        concurrency=concurrency,
        output_dir=out,
        backend="docker",
        stagger_sec=0,
        retries=0,
        executor=executor,
    )
    wall = time.perf_counter() - wall
    return {
        "wall_sec": round(wall, 2),
        "failed": sum(e.reward is None for e in result.episodes),
        "mean_episode_sec": round(
            sum(e.timings.total_sec for e in result.episodes) / len(result.episodes), 2
        ),
    }


async def main(address: str | None, episodes: int, concurrency: int) -> dict[str, Any]:
    cluster = None
    if address is None:
        from ray_helpers.cluster import new_cluster  # noqa: PLC0415 - tests/ray_helpers

        cluster = new_cluster()
        address = cluster.address
    try:
        if cluster is not None:
            cluster.start(workers=2, slots=(concurrency + 1) // 2)
        with tempfile.TemporaryDirectory(prefix="lhtb-bench-") as tmp:
            root = Path(tmp)
            task = lhtb.load_task(write_task(root / "task"))
            executor = TimedRayExecutor(address=address)
            executor.extra_sec = []
            rows: dict[str, Any] = {"episodes": episodes, "concurrency": concurrency}
            for name, make in (("local", lambda: None), ("ray", lambda: executor)):
                await sweep(task, concurrency, concurrency, root / f"{name}-warm", make())
                executor.extra_sec.clear()
                rows[name] = await sweep(task, episodes, concurrency, root / name, make())
                print(json.dumps({name: rows[name]}), file=sys.stderr)
    finally:
        if cluster is not None:
            cluster.stop()
    extra = rows["ray"]["wall_sec"] - rows["local"]["wall_sec"]
    rows["overhead_sec_per_episode"] = round(extra * concurrency / episodes, 2)
    rows["warm_sec_per_episode"] = round(statistics.median(executor.extra_sec), 3)
    rows["cold_start_sec"] = round(max(executor.extra_sec), 2)
    return rows


def markdown(row: dict[str, Any]) -> str:
    local, ray = row["local"], row["ray"]
    return "\n".join(
        [
            "| executor | episodes | concurrency | wall (s) | mean episode (s) |",
            "|---|---:|---:|---:|---:|",
            f"| in-process | {row['episodes']} | {row['concurrency']} | {local['wall_sec']} "
            f"| {local['mean_episode_sec']} |",
            f"| Ray | {row['episodes']} | {row['concurrency']} | {ray['wall_sec']} "
            f"| {ray['mean_episode_sec']} |",
            "",
            f"Ray executor overhead: {row['overhead_sec_per_episode']} s per episode "
            f"(median round trip beyond the episode {row['warm_sec_per_episode']} s, "
            f"slowest {row['cold_start_sec']} s: a worker process's cold start).",
        ]
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=None, help="an existing cluster (default: start one)")
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args()
    row = anyio.run(main, args.address, args.episodes, args.concurrency)
    print(json.dumps(row, indent=2) if args.json else markdown(row))
