"""``run_benchmark``: a sweep of tasks x agents x attempts, in parallel, resumable.

* Concurrency is a :class:`anyio.CapacityLimiter`; by default what the machine
  can hold (see :mod:`lhtb.bench._capacity`). Starts are spread ``stagger_sec`` apart.
* Only infrastructure errors are retried, with exponential backoff and a cap;
  every try keeps its own directory.
* ``run.json`` records the configuration. Running again into the same output
  directory skips finished episodes, reruns the rest, and refuses a changed
  configuration (:class:`RunConfigChangedError`).
* Ctrl-C or SIGTERM cancels the running episodes (each saves its record) and
  removes every sandbox of the run, shielded from cancellation. After a
  SIGKILL, the next invocation (or ``lhtb cleanup --run-id``) removes them.
"""

from __future__ import annotations

import signal
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import attrs

from lhtb._util.blocking import run_blocking
from lhtb._util.display import Displayable, View, number
from lhtb.analysis._leaderboard import Leaderboard
from lhtb.bench._executor import EpisodeExecutor, InProcessExecutor
from lhtb.bench._manifest import finish_manifest, hold_lock, open_manifest
from lhtb.bench._slots import (
    AgentMaker,
    AgentsArg,
    BenchmarkAgent,
    Slot,
    is_complete,
    load_record,
    plan_slots,
    resolve_agents,
)
from lhtb.bench._sweep import Backoff, StartGate, Sweep
from lhtb.episode import _progress
from lhtb.episode._progress import ProgressArg, ProgressReporter
from lhtb.episode._record import Episode, FeedbackMode
from lhtb.episode._runner import resolve_feedback
from lhtb.errors import LhtbError, RunInterruptedError
from lhtb.sandbox.base import SandboxBackend
from lhtb.task._model import Task
from lhtb.verify._seeds import check_seed

__all__ = [
    "AgentMaker",
    "AgentsArg",
    "Backoff",
    "BenchmarkAgent",
    "BenchmarkResult",
    "ProgressReporter",
    "run_benchmark",
    "run_benchmark_sync",
]

CLEANUP_TIMEOUT_SEC = 120.0
"""How long the end-of-run sandbox cleanup may take."""


@attrs.frozen
class BenchmarkResult(Displayable):
    """What a benchmark run produced.

    ``episodes`` holds each slot's final record in plan order (attempt, task,
    agent); ``tries`` counts the episodes this invocation ran (retries
    included); ``resumed`` the slots a previous invocation had finished.
    """

    output_dir: Path
    run_id: str
    episodes: tuple[Episode, ...]
    tries: int
    resumed: int
    concurrency: int

    def leaderboard(self) -> Leaderboard:
        """The leaderboard of this run's episodes."""
        return Leaderboard.from_episodes(self.episodes)

    def _view(self) -> View:
        """One row per episode."""
        rows = tuple(
            (
                e.config.task_name,
                e.config.agent,
                str(e.attempt),
                str(e.outcome),
                number(e.reward),
                str(len(e.passes)),
                e.error or "",
            )
            for e in self.episodes
        )
        return View(
            f"Benchmark run {self.run_id}",
            (
                ("directory", str(self.output_dir)),
                ("episodes", str(len(self.episodes))),
                ("tries this time", str(self.tries)),
                ("resumed", str(self.resumed)),
            ),
            ("task", "agent", "attempt", "outcome", "reward", "passes", "error"),
            rows,
        )


_EPISODE_DEFAULTS: dict[str, Any] = {
    "budget_sec": None,
    "continue_until_timeout": None,
    "max_passes": None,
    "min_pass_interval_sec": 0.0,
    "verifier_time_counts": True,
    "seed": None,
    "checkpoint_interval_sec": None,
}


def _run_config(
    tasks: Sequence[Task],
    agents: Sequence[BenchmarkAgent],
    attempts: int,
    backend_name: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    """The settings that decide scores; a resume must match them exactly.

    Episode settings left at their defaults are not written, so a setting that
    a later lhtb adds (with a default) does not change an older run's
    configuration.
    """
    settings = {
        "budget_sec": options["budget"],
        "continue_until_timeout": options["continue_until_timeout"],
        "max_passes": options["max_passes"],
        "min_pass_interval_sec": options["min_pass_interval_sec"],
        "verifier_time_counts": options["verifier_time_counts"],
        "seed": options["seed"],
        "checkpoint_interval_sec": options["checkpoint_interval_sec"],
    }
    return {
        "tasks": {task.name: task.checksum for task in tasks},
        "agents": [{"name": a.name, "model": a.model} for a in agents],
        "attempts": attempts,
        "backend": backend_name,
        "feedback": str(FeedbackMode(options["feedback"])),
        **{k: v for k, v in settings.items() if v != _EPISODE_DEFAULTS[k]},
    }


def _can_handle_signals() -> bool:
    return threading.current_thread() is threading.main_thread()


async def _watch_signals(scope: anyio.CancelScope, caught: list[int]) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            caught.append(signum)
            scope.cancel()
            return


async def _sweep(
    root: Path,
    config: dict[str, Any],
    run_id: str | None,
    runner: EpisodeExecutor,
    slots: list[Slot],
    limit: int,
    progress: ProgressArg,
    handle_signals: bool,
    *,
    retries: int,
    backoff: Backoff | None,
    stagger_sec: float,
    options: dict[str, Any],
) -> tuple[Sweep, dict[str, Any], list[int]]:
    """Run the slots that are not finished yet (the run directory is locked)."""
    manifest = open_manifest(
        root,
        config,
        run_id or f"bench-{uuid.uuid4().hex[:10]}",
        seed=config.get("seed"),
    )
    the_run_id: str = manifest["run_id"]
    if len(manifest["invocations"]) > 1:
        with anyio.move_on_after(CLEANUP_TIMEOUT_SEC):
            await runner.cleanup(the_run_id)  # leftovers of a killed invocation
    sweep = Sweep(
        root=root,
        run_id=the_run_id,
        executor=runner,
        limiter=anyio.CapacityLimiter(limit),
        gate=StartGate(stagger_sec),
        reporter=_progress.make_reporter(progress),
        tally=_progress.Tally(total=len(slots), concurrency=limit),
        retries=retries,
        backoff=backoff or Backoff(),
        episode_options=options,
        run_seed=manifest["seed"],
    )
    pending: list[Slot] = []
    for slot in slots:
        tries = slot.tries(root)
        record = load_record(tries[-1][1]) if tries else None
        if record is not None and is_complete(record):
            sweep.records[slot.key] = record
        else:
            pending.append(slot)
    _progress.seed(sweep.tally, sweep.records.values())
    caught: list[int] = []
    sweep.reporter.start(sweep.tally)
    try:
        async with anyio.create_task_group() as outer:
            if handle_signals and _can_handle_signals():
                outer.start_soon(_watch_signals, outer.cancel_scope, caught)
            async with anyio.create_task_group() as group:
                for slot in pending:
                    group.start_soon(sweep.run_slot, slot)
            outer.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            sweep.reporter.stop()
            with anyio.move_on_after(CLEANUP_TIMEOUT_SEC):
                await runner.cleanup(the_run_id)
            finish_manifest(
                root,
                manifest,
                tries=sweep.tries,
                finished=len(sweep.records),
                total=len(slots),
                signal=caught[0] if caught else None,
            )
    return sweep, manifest, caught


async def run_benchmark(
    tasks: Sequence[Task],
    agents: AgentsArg,
    *,
    output_dir: str | Path,
    attempts: int = 1,
    concurrency: int | None = None,
    retries: int = 2,
    backoff: Backoff | None = None,
    backend: SandboxBackend | str | None = None,
    budget: float | None = None,
    feedback: FeedbackMode | str | None = None,
    continue_until_timeout: bool | None = None,
    max_passes: int | None = None,
    min_pass_interval_sec: float = 0.0,
    verifier_time_counts: bool = True,
    stagger_sec: float = 0.5,
    progress: ProgressArg = None,
    run_id: str | None = None,
    handle_signals: bool = True,
    executor: EpisodeExecutor | None = None,
    seed: int | None = None,
    checkpoint_interval_sec: float | None = None,
) -> BenchmarkResult:
    """Run every agent on every task ``attempts`` times, into ``output_dir``.

    ``agents`` is an agent spec (``"oracle"``, ``"module:Class"``), an agent
    class, a maker ``(task) -> agent or factory``, a :class:`BenchmarkAgent`,
    a list of those, or a mapping ``{name: spec or maker}``. Per-episode
    settings (``budget``, ``feedback`` (default ``$LHTB_VERIFIER_FEEDBACK``,
    else binary), ``max_passes``, ``min_pass_interval_sec``,
    ``checkpoint_interval_sec``, ...) are those of
    :func:`lhtb.run_episode`. ``progress`` is ``"auto"`` (a live display on a
    terminal, plain lines in a notebook or a log), ``"rich"``, ``"lines"``,
    ``"quiet"`` (``key=value`` log lines), ``"none"``/None, or a
    :class:`ProgressReporter`. With ``handle_signals`` (and
    in the main thread), SIGINT and SIGTERM stop the run cleanly.
    ``executor`` says where episodes run: in this process (the default,
    :class:`InProcessExecutor`) or on a Ray cluster (:class:`lhtb.RayExecutor`);
    results, resume and the leaderboard do not depend on it.

    ``seed`` is the run's seed (default: a random one, kept in ``run.json`` so
    a resume reuses it). Each episode's grading seed is derived from it, the
    task checksum and the attempt number: every agent of a slot grades the
    same hidden cases, and attempts draw different ones.

    Raises:
        RunConfigChangedError: ``output_dir`` holds a run with other settings.
        RunLockedError: another process is running into ``output_dir``.
        RunInterruptedError: a signal stopped the run (it can be resumed).
        AgentLoadError: an agent given by spec cannot be loaded.
        LhtbError: bad arguments (no agents, duplicate names, attempts < 1).
        RayNotInstalledError: a :class:`lhtb.RayExecutor` without ``ray`` installed.
    """
    tasks = list(tasks)
    if attempts < 1 or retries < 0 or (concurrency is not None and concurrency < 1):
        raise LhtbError(
            f"attempts, concurrency must be >= 1 and retries >= 0 "
            f"(got attempts={attempts}, concurrency={concurrency}, retries={retries})"
        )
    if not tasks:
        raise LhtbError("no tasks to run", fix="give at least one task")
    agent_list = resolve_agents(agents)
    for agent in agent_list:
        agent.preflight(tasks[0])
    slots = plan_slots(tasks, agent_list, attempts)
    if seed is not None:
        check_seed(seed, where="run_benchmark(seed=)")
    options: dict[str, Any] = {
        "budget": budget,
        "feedback": resolve_feedback(feedback),
        "continue_until_timeout": continue_until_timeout,
        "max_passes": max_passes,
        "min_pass_interval_sec": min_pass_interval_sec,
        "verifier_time_counts": verifier_time_counts,
        "seed": seed,
        "checkpoint_interval_sec": checkpoint_interval_sec,
    }
    runner = executor or InProcessExecutor()
    root = Path(output_dir)
    backend_name = await runner.open(backend, tasks, agent_list)
    try:
        limit = concurrency or runner.capacity(tasks)
        config = _run_config(tasks, agent_list, attempts, backend_name, options)
        with hold_lock(root):
            sweep, manifest, caught = await _sweep(
                root,
                config,
                run_id,
                runner,
                slots,
                limit,
                progress,
                handle_signals,
                retries=retries,
                backoff=backoff,
                stagger_sec=stagger_sec,
                options=options,
            )
    finally:
        with anyio.CancelScope(shield=True):
            await runner.close()
    if caught:
        name = signal.Signals(caught[0]).name
        raise RunInterruptedError(
            f"stopped by {name} with {len(sweep.records)}/{len(slots)} episodes finished",
            where=str(root),
            fix="run the same command again to resume",
        )
    return BenchmarkResult(
        output_dir=root,
        run_id=manifest["run_id"],
        episodes=tuple(sweep.records[s.key] for s in slots if s.key in sweep.records),
        tries=sweep.tries,
        resumed=sweep.tally.resumed,
        concurrency=limit,
    )


def run_benchmark_sync(tasks: Sequence[Task], agents: AgentsArg, **kwargs: Any) -> BenchmarkResult:
    """Blocking wrapper around :func:`run_benchmark`, for scripts and notebooks.

    Works inside a running event loop too (a Jupyter cell): the run then goes
    on a worker thread with its own loop (signals are not handled there; stop
    it with the kernel's interrupt only between episodes, or use ``await
    lhtb.run_benchmark(...)`` in a notebook).
    """

    async def main() -> BenchmarkResult:
        return await run_benchmark(tasks, agents, **kwargs)

    return run_blocking(main)
