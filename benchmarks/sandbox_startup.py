"""Sandbox start time and exec round trip: the local backend next to Docker, in one run.

Run: python3 benchmarks/sandbox_startup.py [--repeats N] [--execs N] [--backend NAME ...]

For every backend that can run here (Docker when a daemon answers, local when
the host allows namespaces), the same tiny task is prepared once (cached by the
content of ``environment/``), then measured on the same machine in the same
run: ``start`` (until the sandbox answers commands), ``destroy``, an exec round
trip of ``true``, a 1 MiB output, a ``freeze``/``thaw`` pair and a ``snapshot``.
Prints a Markdown table with medians and p95s.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

import lhtb
from lhtb.errors import BackendUnavailableError
from lhtb.sandbox.base import SandboxBackend, SandboxSpec
from lhtb.sandbox.registry import resolve_backend

DOCKERFILE = "FROM debian:bookworm-slim\nRUN mkdir -p /app\nWORKDIR /app\n"


def make_task(root: Path) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (root / "tests" / "test.sh").write_text("#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n")
    (root / "instruction.md").write_text("Nothing to do.\n")
    (root / "task.toml").write_text(
        "[environment]\nallow_internet = false\n[agent]\ntimeout_sec = 600\n"
    )
    return lhtb.load_task(root)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p95_ms(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000


async def timed(call: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await call()
    return time.perf_counter() - started


async def measure(
    backend: SandboxBackend, task: lhtb.Task, repeats: int, execs: int
) -> dict[str, list[float]]:
    run_id = f"bench-{uuid.uuid4().hex[:8]}"
    samples: dict[str, list[float]] = {
        k: [] for k in ("start", "destroy", "exec", "exec 1 MiB", "freeze+thaw", "snapshot")
    }
    prepare_started = time.perf_counter()
    image = await backend.prepare(task)
    samples["prepare (cached)"] = []
    samples["prepare (cached)"].append(await timed(lambda: backend.prepare(task)))
    print(f"  {backend.name}: prepare {time.perf_counter() - prepare_started:.2f}s", flush=True)
    spec = SandboxSpec(image=image, task=task, run_id=run_id)
    try:
        for _ in range(repeats):
            started = time.perf_counter()
            sandbox = await backend.start(spec)
            result = await sandbox.exec(["true"])
            samples["start"].append(time.perf_counter() - started)
            assert result.ok, result
            for _ in range(max(1, execs // repeats)):
                samples["exec"].append(await timed(functools.partial(sandbox.exec, ["true"])))
            samples["exec 1 MiB"].append(
                await timed(functools.partial(sandbox.exec, "head -c 1048576 /dev/zero"))
            )
            started = time.perf_counter()
            await sandbox.freeze()
            await sandbox.thaw()
            samples["freeze+thaw"].append(time.perf_counter() - started)
            started = time.perf_counter()
            snap = await sandbox.snapshot()
            samples["snapshot"].append(time.perf_counter() - started)
            await backend.release(snap)
            samples["destroy"].append(await timed(sandbox.destroy))
    finally:
        await backend.cleanup(run_id)
    return samples


async def main(names: list[str], repeats: int, execs: int) -> None:
    results: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        task = make_task(Path(tmp) / "task")
        for name in names:
            try:
                backend = resolve_backend(name)
                results[name] = await measure(backend, task, repeats, execs)
            except (BackendUnavailableError, Exception) as error:
                print(f"  {name}: skipped ({error})", flush=True)
    if not results:
        return
    columns = list(results)
    header = "| measure | " + " | ".join(f"{n} median | {n} p95" for n in columns) + " |"
    print()
    print(header)
    print("|---|" + "---:|---:|" * len(columns))
    for measure_name in next(iter(results.values())):
        cells = []
        for name in columns:
            values = results[name].get(measure_name) or [float("nan")]
            cells.append(f"{median_ms(values):.1f} ms | {p95_ms(values):.1f} ms")
        print(f"| {measure_name} | " + " | ".join(cells) + " |")
    if {"local", "docker"} <= set(results):
        for measure_name in ("start", "exec"):
            ratio = median_ms(results["docker"][measure_name]) / median_ms(
                results["local"][measure_name]
            )
            print(f"\n{measure_name}: docker / local = {ratio:.1f}x", end="")
        print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=10, help="sandboxes started per backend")
    parser.add_argument("--execs", type=int, default=100, help="exec round trips per backend")
    parser.add_argument(
        "--backend", action="append", help="backend names (default: local and docker)"
    )
    args = parser.parse_args()
    anyio.run(main, args.backend or ["local", "docker"], args.repeats, args.execs)
