"""Default concurrency: CPUs from affinity and cgroup quotas, memory vs tasks' memory_mb."""

from __future__ import annotations

from pathlib import Path

import attrs

import lhtb
from lhtb.bench._capacity import cpu_count, default_concurrency


def task(cpus: float = 1, memory_mb: int = 2048) -> lhtb.Task:
    base = lhtb.Task(name="t", instruction="x")
    return attrs.evolve(
        base, environment=attrs.evolve(base.environment, cpus=cpus, memory_mb=memory_mb)
    )


def test_cgroup_v2_quota_caps_the_cpu_count(tmp_path: Path) -> None:
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert cpu_count(tmp_path) == min(1.5, cpu_count(tmp_path / "none"))


def test_cgroup_v1_quota_caps_the_cpu_count(tmp_path: Path) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("100000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu_count(tmp_path) == 1.0


def test_no_quota_means_the_affinity_mask(tmp_path: Path) -> None:
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cpu_count(tmp_path) >= 1


def test_concurrency_follows_the_tightest_resource() -> None:
    by_cpu = default_concurrency([task(cpus=2)], cpus=16, memory_mb=100_000)
    assert (by_cpu.concurrency, by_cpu.limited_by) == (8, "cpu")
    by_memory = default_concurrency([task(memory_mb=4096), task()], cpus=16, memory_mb=20_000)
    assert (by_memory.concurrency, by_memory.limited_by) == (3, "memory")  # 16000 // 4096
    assert default_concurrency([task(memory_mb=8192)], cpus=1, memory_mb=1000).concurrency == 1
    assert "memory" in by_memory.describe()
