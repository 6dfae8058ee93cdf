"""Exec round trip: lhtb's exec channel next to ``docker exec``, the docker SDK and a local process.

Run: python3 benchmarks/exec_latency.py [--execs N] [--cli-execs N] [--no-files]

One container (a ``debian:bookworm-slim`` image with ``python3``, like the task
images), measured in one run:

* ``lhtb exec``: ``DockerSandbox.exec(["true"])`` through the exec channel
  (the default), median and p99;
* ``lhtb exec, channel off``: the same call on the plain path (one Engine exec
  per command, ``DockerSettings(exec_channel=False)``);
* ``docker exec`` CLI: ``docker exec <id> true`` as a subprocess;
* docker SDK: ``container.exec_run(["true"])``;
* local: ``subprocess.run(["true"])`` on the host, the floor;
* 64 concurrent ``lhtb exec`` calls in the one sandbox (wall time, all must succeed);
* with files (default): ``write_file`` + ``read_file`` round trips by size, through
  the channel and through the Engine's archive API, to place the crossover.

Prints Markdown tables with ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import attrs

import lhtb
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.docker import DockerBackend, DockerSandbox, DockerSettings
from lhtb.sandbox.docker._channel import ChannelSettings

DOCKERFILE = (
    "FROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends "
    "python3 procps ca-certificates && rm -rf /var/lib/apt/lists/*\nRUN mkdir -p /app\n"
    "WORKDIR /app\n"
)
FILE_SIZES = [1 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]


def make_task(root: Path) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (root / "tests" / "test.sh").write_text("#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n")
    (root / "instruction.md").write_text("Nothing to do.\n")
    (root / "task.toml").write_text("[environment]\nallow_internet = false\n")
    return lhtb.load_task(root)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def sample(call: Callable[[], Awaitable[object]], count: int) -> list[float]:
    for _ in range(min(5, count)):
        await call()  # warm-up: the channel's first call starts the helper
    times = []
    for _ in range(count):
        started = time.perf_counter()
        await call()
        times.append(time.perf_counter() - started)
    return times


def sample_sync(call: Callable[[], object], count: int) -> list[float]:
    call()
    times = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return times


async def lhtb_true(sandbox: DockerSandbox) -> None:
    result = await sandbox.exec(["true"])
    assert result.ok, result


async def concurrent(sandbox: DockerSandbox, count: int) -> float:
    failures: list[object] = []

    async def one() -> None:
        result = await sandbox.exec(["sh", "-c", "echo $$"], timeout=60)
        if not result.ok:
            failures.append(result)

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(count):
            group.start_soon(one)
    elapsed = time.perf_counter() - started
    assert not failures, failures
    return elapsed


async def file_round_trip(sandbox: DockerSandbox, size: int, repeats: int) -> float:
    payload = os.urandom(size)
    times = []
    for index in range(repeats):
        path = f"/tmp/bench/{size}-{index}.bin"
        started = time.perf_counter()
        await sandbox.write_file(path, payload)
        data = await sandbox.read_file(path)
        times.append(time.perf_counter() - started)
        assert data == payload
    return statistics.median(times)


async def main(args: argparse.Namespace) -> None:
    backend = DockerBackend()
    run_id = f"bench-exec-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        task = make_task(Path(tmp) / "task")
        image = await backend.prepare(task)
        sandbox = await backend.start(SandboxSpec(image=image, task=task, run_id=run_id))
        try:
            await report(args, sandbox, image)
        finally:
            with anyio.CancelScope(shield=True):
                await sandbox.destroy()
                await backend.cleanup(run_id)


def same_container(sandbox: DockerSandbox, **settings: Any) -> DockerSandbox:
    """Another handle on ``sandbox``'s container with other backend settings."""
    other = DockerBackend(sandbox._backend.client, settings=DockerSettings(**settings))
    return DockerSandbox(other, sandbox.id, sandbox.spec)


async def report(args: argparse.Namespace, sandbox: DockerSandbox, image: str) -> None:
    n = args.execs
    client = sandbox._backend.client
    container = client.containers.get(sandbox.id)
    plain = same_container(sandbox, exec_channel=False)

    channel = await sample(lambda: lhtb_true(sandbox), n)
    assert sandbox._channel_manager().available, "the exec channel did not start"
    plain_times = await sample(lambda: lhtb_true(plain), max(20, n // 5))
    cli = sample_sync(
        lambda: subprocess.run(["docker", "exec", sandbox.id, "true"], check=True),
        args.cli_execs,
    )
    sdk = sample_sync(lambda: container.exec_run(["true"]), max(20, n // 5))
    local = sample_sync(lambda: subprocess.run(["true"], check=True), n)
    burst = [await concurrent(sandbox, 64) for _ in range(5)]

    base = statistics.median(channel)
    cli_median = statistics.median(cli)
    print(f"## Exec round trip (`true`), image {image}, {n} lhtb execs\n")
    print("| path | median ms | p99 ms | vs lhtb exec |")
    print("|---|---:|---:|---:|")
    rows = [
        ("lhtb exec (exec channel)", channel),
        ("lhtb exec, channel off (plain Engine exec)", plain_times),
        ("`docker exec` CLI", cli),
        ("docker SDK `exec_run`", sdk),
        ("local `subprocess.run` (host)", local),
    ]
    for name, times in rows:
        median = statistics.median(times)
        print(f"| {name} | {ms(median)} | {ms(pct(times, 0.99))} | {median / base:.2f}x |")
    print(
        f"\nlhtb exec is {cli_median / base:.1f}x faster than `docker exec` "
        f"and {base / statistics.median(local):.1f}x a local subprocess. "
        f"64 concurrent lhtb execs in one sandbox: median {ms(statistics.median(burst))} ms "
        f"wall for all 64, no errors.\n"
    )
    if args.files:
        await report_files(sandbox)


async def report_files(sandbox: DockerSandbox) -> None:
    big = attrs.evolve(ChannelSettings(), file_channel_max_bytes=1 << 40)
    through_channel = same_container(sandbox, channel=big)
    through_archive = same_container(sandbox, exec_channel=False)
    await through_channel.exec(["true"])
    print("## File round trip (`write_file` + `read_file`, root), median of 5\n")
    print("| size | exec channel ms | archive API ms | faster |")
    print("|---:|---:|---:|---|")
    for size in FILE_SIZES:
        fast = await file_round_trip(through_channel, size, 5)
        archive = await file_round_trip(through_archive, size, 5)
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        winner = "channel" if fast < archive else "archive"
        print(f"| {label} | {ms(fast)} | {ms(archive)} | {winner} |")
    cap = ChannelSettings().file_channel_max_bytes
    print(f"\n(`ChannelSettings.file_channel_max_bytes` = {cap >> 20} MiB: the size switch.)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--execs", type=int, default=300, help="lhtb and local samples")
    parser.add_argument("--cli-execs", type=int, default=40, help="`docker exec` CLI samples")
    parser.add_argument("--no-files", dest="files", action="store_false")
    anyio.run(main, parser.parse_args())
