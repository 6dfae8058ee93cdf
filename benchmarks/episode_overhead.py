"""Harness overhead on Docker: sandbox start, exec round trip, verifier pass per isolation mode.

Run: python3 benchmarks/episode_overhead.py [--repeats N]

Everything is measured in one run on the same machine, and exec is compared
with the `docker exec` CLI on the same container, so the ratios hold even when
the machine is noisy. The verifier pass uses a test script that only writes a
reward, so its duration is the harness's own overhead: freeze, export/import or
snapshot, a fresh container where the mode needs one, reading the scorecard,
teardown and thaw.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import anyio
import attrs

import lhtb
from lhtb.sandbox.base import SandboxSpec
from lhtb.sandbox.docker import DockerBackend
from lhtb.verify import Verifier


def make_task(root: Path) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    (root / "tests" / "test.sh").write_text("#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n")
    (root / "instruction.md").write_text("Nothing to do.\n")
    (root / "task.toml").write_text(
        'artifacts = ["/app"]\n[agent]\ntimeout_sec = 600\n[verifier]\nisolation = "separate"\n'
    )
    return lhtb.load_task(root)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p99_ms(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1000


async def measure(repeats: int) -> None:
    backend = DockerBackend()
    run_id = f"bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        task = make_task(Path(tmp) / "task")
        image = await backend.prepare(task)
        spec = SandboxSpec(image=image, task=task, run_id=run_id)
        try:
            starts = []
            for _ in range(repeats):
                clock = time.perf_counter()
                sandbox = await backend.start(spec)
                starts.append(time.perf_counter() - clock)
                await sandbox.destroy()

            sandbox = await backend.start(spec)
            lhtb_exec, cli_exec = [], []
            for _ in range(repeats * 6):
                clock = time.perf_counter()
                await sandbox.exec(["true"])
                lhtb_exec.append(time.perf_counter() - clock)
                clock = time.perf_counter()
                subprocess.run(["docker", "exec", sandbox.id, "true"], check=True)
                cli_exec.append(time.perf_counter() - clock)

            passes: dict[str, list[float]] = {}
            for mode in lhtb.IsolationMode:
                moded = attrs.evolve(task, verifier=attrs.evolve(task.verifier, isolation=mode))
                verifier = Verifier(moded, backend, image, run_id, Path(tmp) / f"ep-{mode}")
                passes[str(mode)] = []
                for number in range(1, repeats + 1):
                    result = await verifier.run_pass(sandbox, number, final=False)
                    assert result.reward == 1.0, result
                    passes[str(mode)].append(result.duration_sec)
            await sandbox.destroy()
        finally:
            await backend.cleanup(run_id)

    print(f"## Docker harness overhead ({repeats} repeats, medians)\n")
    print("| measure | median | p99 |")
    print("|---|---|---|")
    print(f"| sandbox start | {median_ms(starts):.0f} ms | {p99_ms(starts):.0f} ms |")
    print(f"| lhtb exec round trip | {median_ms(lhtb_exec):.1f} ms | {p99_ms(lhtb_exec):.1f} ms |")
    print(f"| `docker exec` CLI | {median_ms(cli_exec):.1f} ms | {p99_ms(cli_exec):.1f} ms |")
    ratio = statistics.median(cli_exec) / statistics.median(lhtb_exec)
    print(f"| ratio docker exec / lhtb exec | {ratio:.2f}x | |")
    for mode, samples in passes.items():
        label = f"verifier pass overhead, `{mode}`"
        print(f"| {label} | {median_ms(samples):.0f} ms | {p99_ms(samples):.0f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    anyio.run(measure, args.repeats)


if __name__ == "__main__":
    main()
