"""Oracle run of every task in tasks/, sequentially and at concurrency 4.

    python benchmarks/throughput.py [--tasks tasks/] [--levels 1 4]

Prints, per concurrency level, the wall time of the whole sweep, the harness
process's CPU time (user + system, its threads included; the Docker daemon and
the containers are not counted) and how many episodes were solved. Task images
are built before the first timed sweep, so the figures are steady-state runs.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import anyio

import lhtb
from lhtb.sandbox.registry import resolve_backend


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def sweep(tasks: list[lhtb.Task], concurrency: int, out: Path) -> tuple[float, float, int]:
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = await lhtb.run_benchmark(
        tasks, "oracle", concurrency=concurrency, output_dir=out, stagger_sec=0, retries=0
    )
    solved = sum(episode.solved for episode in result.episodes)
    return time.perf_counter() - wall, cpu_seconds() - cpu, solved


async def main(tasks_dir: Path, levels: list[int]) -> None:
    tasks = lhtb.load_tasks(tasks_dir)
    backend = resolve_backend(None)
    for task in tasks:  # build (or find) every image outside the timed sweeps
        await backend.prepare(task)
    print(f"## Oracle sweep of {len(tasks)} tasks on `{backend.name}`\n")
    print("| concurrency | wall | harness CPU | CPU per episode | solved |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for level in levels:
            wall, cpu, solved = await sweep(tasks, level, Path(tmp) / f"c{level}")
            print(
                f"| {level} | {wall:.1f} s | {cpu:.2f} s | {cpu / len(tasks):.3f} s "
                f"| {solved}/{len(tasks)} |"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=Path, default=Path("tasks"))
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    anyio.run(main, args.tasks, args.levels)
