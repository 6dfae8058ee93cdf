"""Benchmark runs: many episodes (tasks x agents x attempts), in parallel, resumable.

Owns :func:`run_benchmark`: planning the slots of a run and where each lives on
disk, the run manifest (a resume must match it) and its lock, the sweep (start
spreading, retries with backoff, failure records), where episodes execute (the
:class:`EpisodeExecutor` plug point, :class:`InProcessExecutor`, :class:`RayExecutor`
and its worker half), and how many episodes this machine can hold.

- ``_benchmark``: :func:`run_benchmark`, :class:`BenchmarkResult`.
- ``_slots``: the slots, their directories, the agents of a run.
- ``_sweep``: workers, retries, :class:`Backoff`.
- ``_executor``: :class:`EpisodeExecutor`, :class:`EpisodeJob`, :class:`InProcessExecutor`.
- ``_ray_executor``, ``_ray_worker``: the Ray cluster (driver and node sides).
- ``_manifest``: ``run.json``; ``_capacity``: the default concurrency.

May import: :mod:`lhtb.analysis` (a result's leaderboard), :mod:`lhtb.episode`,
:mod:`lhtb.verify`, :mod:`lhtb.agents`, :mod:`lhtb.sandbox`, :mod:`lhtb.task`,
:mod:`lhtb.errors`, :mod:`lhtb._util`.
"""

from lhtb.bench._benchmark import (
    BenchmarkAgent,
    BenchmarkResult,
    run_benchmark,
    run_benchmark_sync,
)
from lhtb.bench._executor import EpisodeExecutor, EpisodeJob, InProcessExecutor
from lhtb.bench._ray_executor import RayExecutor
from lhtb.bench._sweep import Backoff

__all__ = [
    "Backoff",
    "BenchmarkAgent",
    "BenchmarkResult",
    "EpisodeExecutor",
    "EpisodeJob",
    "InProcessExecutor",
    "RayExecutor",
    "run_benchmark",
    "run_benchmark_sync",
]
