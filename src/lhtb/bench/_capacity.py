"""How many episodes this machine can hold at once.

The CPU count honours the process's affinity mask and a cgroup CPU quota (v2
``cpu.max`` or v1 ``cpu.cfs_quota_us``), unlike :func:`os.cpu_count`. Memory is
what the kernel says is available, capped by a cgroup memory limit. The default
concurrency is the smaller of CPUs / the largest task's ``cpus`` and usable
memory / the largest task's ``memory_mb``, at least 1.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import attrs

from lhtb.task._model import Task

__all__ = ["Capacity", "available_memory_mb", "cpu_count", "default_concurrency"]

_CGROUP = Path("/sys/fs/cgroup")
MEMORY_HEADROOM = 0.8
"""Share of available memory that sandboxes may take; the rest is left to the host."""
_NO_LIMIT = 1 << 60


@attrs.frozen
class Capacity:
    """The default concurrency and what it was derived from."""

    concurrency: int
    cpus: float
    memory_mb: int | None
    limited_by: str

    def describe(self) -> str:
        """One line for logs: ``4 (cpu: 4 CPUs, 23000 MiB free)``."""
        memory = "unknown memory" if self.memory_mb is None else f"{self.memory_mb} MiB free"
        return f"{self.concurrency} ({self.limited_by}: {self.cpus:g} CPUs, {memory})"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _cgroup_cpu_quota(root: Path = _CGROUP) -> float | None:
    """CPUs allowed by a cgroup quota, or None without one."""
    v2 = _read(root / "cpu.max")
    if v2:
        quota, _, period = v2.partition(" ")
        if quota != "max" and period:
            return int(quota) / int(period)
        return None
    quota_us = _read(root / "cpu" / "cpu.cfs_quota_us") or _read(root / "cpu.cfs_quota_us")
    period_us = _read(root / "cpu" / "cpu.cfs_period_us") or _read(root / "cpu.cfs_period_us")
    if quota_us and period_us and int(quota_us) > 0 and int(period_us) > 0:
        return int(quota_us) / int(period_us)
    return None


def cpu_count(cgroup_root: Path = _CGROUP) -> float:
    """CPUs this process may use: affinity mask, then any cgroup quota."""
    try:
        cpus: float = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        quota = _cgroup_cpu_quota(cgroup_root)
    except ValueError:
        quota = None
    if quota is not None:
        cpus = min(cpus, quota)
    return max(cpus, 1.0)


def _meminfo_available_mb() -> int | None:
    text = _read(Path("/proc/meminfo"))
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return None


def _cgroup_memory_free_mb(root: Path = _CGROUP) -> int | None:
    pairs = (
        (root / "memory.max", root / "memory.current"),
        (root / "memory" / "memory.limit_in_bytes", root / "memory" / "memory.usage_in_bytes"),
    )
    for limit_path, usage_path in pairs:
        limit = _read(limit_path)
        if limit is None or limit == "max" or not limit.isdigit() or int(limit) >= _NO_LIMIT:
            continue
        usage = _read(usage_path)
        used = int(usage) if usage and usage.isdigit() else 0
        return max(0, int(limit) - used) // (1024 * 1024)
    return None


def available_memory_mb(cgroup_root: Path = _CGROUP) -> int | None:
    """Memory available to new sandboxes in MiB, or None when it cannot be read."""
    known = [
        m for m in (_meminfo_available_mb(), _cgroup_memory_free_mb(cgroup_root)) if m is not None
    ]
    return min(known) if known else None


def default_concurrency(
    tasks: Sequence[Task], *, cpus: float | None = None, memory_mb: int | None = None
) -> Capacity:
    """The concurrency this machine can hold for ``tasks`` (measured unless given)."""
    cpus = cpu_count() if cpus is None else cpus
    memory_mb = available_memory_mb() if memory_mb is None else memory_mb
    task_cpus = max((t.environment.cpus for t in tasks), default=1.0) or 1.0
    task_memory = max((t.environment.memory_mb for t in tasks), default=2048) or 2048
    by_cpu = max(1, math.floor(cpus / task_cpus))
    if memory_mb is None:
        return Capacity(by_cpu, cpus, None, "cpu")
    by_memory = max(1, math.floor(memory_mb * MEMORY_HEADROOM / task_memory))
    if by_memory < by_cpu:
        return Capacity(by_memory, cpus, memory_mb, "memory")
    return Capacity(by_cpu, cpus, memory_mb, "cpu")
