"""Where a benchmark run's episodes execute: the executor plug point and the in-process one.

An executor runs one *try* of a slot and leaves its record (``episode.json``
and the rest of the episode directory) in the try directory the sweep chose on
the driver. Retries, resume, progress and the leaderboard stay in the sweep, so
they behave the same whichever executor runs the episodes.
"""

from __future__ import annotations

import abc
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from lhtb.bench._capacity import default_concurrency
from lhtb.bench._slots import BenchmarkAgent
from lhtb.episode._failures import classify
from lhtb.episode._record import Episode, EpisodeConfig, FeedbackMode, Outcome
from lhtb.episode._runner import run_episode
from lhtb.errors import LhtbError
from lhtb.sandbox.base import SandboxBackend
from lhtb.sandbox.registry import resolve_backend
from lhtb.task._model import ContinueMode, Task

__all__ = ["EpisodeExecutor", "EpisodeJob", "InProcessExecutor", "failure_record", "run_job"]

EventHook = Callable[[str, dict[str, Any]], None]


@attrs.frozen
class EpisodeJob:
    """One try of one slot: what to run, and the directory its record belongs in."""

    task: Task
    agent: BenchmarkAgent
    attempt: int
    directory: Path
    run_id: str
    options: dict[str, Any]


def failure_record(
    job: EpisodeJob,
    backend_name: str,
    outcome: Outcome,
    error: str,
    *,
    detail: str | None = None,
    can_retry: bool = True,
) -> Episode:
    """Save and return a record for a try that ended before ``run_episode`` wrote one."""
    task, options = job.task, job.options
    budget = options["budget"] if options["budget"] is not None else task.agent.timeout_sec
    cut = options["continue_until_timeout"]
    now = datetime.now(UTC)
    episode = Episode(
        id=uuid.uuid4().hex[:12],
        config=EpisodeConfig(
            task_name=task.name,
            task_checksum=task.checksum,
            agent=job.agent.name,
            budget_sec=budget,
            task_budget_sec=task.agent.timeout_sec,
            continue_until_timeout=(task.agent.continue_until_timeout if cut is None else cut),
            continue_mode=ContinueMode(task.agent.continue_mode),
            feedback=FeedbackMode(options["feedback"]),
            isolation=task.verifier.isolation,
            pass_threshold=task.verifier.pass_threshold,
            max_passes=options["max_passes"] or task.verifier.max_passes,
            verifier_time_counts=options["verifier_time_counts"],
            backend=backend_name,
            model=job.agent.model,
            category=task.category,
            tier=task.tier,
            seed=options.get("seed"),
            checkpoint_interval_sec=options.get("checkpoint_interval_sec")
            or task.verifier.checkpoint_interval_sec,
        ),
        outcome=outcome,
        started_at=now,
        error=error,
        ended_at=now,
        attempt=job.attempt,
        error_detail=detail,
        can_retry=can_retry,
    )
    job.directory.mkdir(parents=True, exist_ok=True)
    episode.save(job.directory / "episode.json")
    return episode


async def run_job(job: EpisodeJob, backend: SandboxBackend, on_event: EventHook) -> Episode:
    """Run one try in this process; every failure becomes a saved record, never an exception."""
    try:
        episode = await run_episode(
            job.task,
            job.agent.recipe(job.task),
            backend=backend,
            output_dir=job.directory,
            run_id=job.run_id,
            model=job.agent.model,
            on_event=on_event,
            **job.options,
        )
    except Exception as exc:  # an agent that cannot be made, bad settings, a bug: record it
        failure = classify(exc, job.directory)
        return failure_record(
            job,
            backend.name,
            failure.outcome,
            failure.message,
            detail=failure.detail,
            can_retry=failure.can_retry,
        )
    if episode.attempt != job.attempt:
        episode = attrs.evolve(episode, attempt=job.attempt)
        episode.save(job.directory / "episode.json")
    return episode


class EpisodeExecutor(abc.ABC):
    """Runs the episodes of :func:`lhtb.run_benchmark` somewhere.

    The sweep calls :meth:`open` once, then :meth:`run` for every try (many at
    once), :meth:`cleanup` after a killed invocation and at the end, and
    :meth:`close` last.
    """

    name: str = "executor"

    @abc.abstractmethod
    async def open(
        self,
        backend: SandboxBackend | str | None,
        tasks: Sequence[Task],
        agents: Sequence[BenchmarkAgent],
    ) -> str:
        """Get ready to run these tasks and agents; return the sandbox backend's name.

        Raises:
            LhtbError: the executor cannot run them (missing dependency, no capacity).
        """

    @abc.abstractmethod
    def capacity(self, tasks: Sequence[Task]) -> int:
        """How many episodes can run at once by default (after :meth:`open`)."""

    @abc.abstractmethod
    async def run(self, job: EpisodeJob, on_event: EventHook) -> Episode:
        """Run one try; its record is saved under ``job.directory`` when this returns."""

    @abc.abstractmethod
    async def cleanup(self, run_id: str) -> int:
        """Remove the run's sandboxes wherever episodes ran; how many went."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release what :meth:`open` acquired."""


class InProcessExecutor(EpisodeExecutor):
    """Runs episodes as tasks of this process's event loop (the default)."""

    name = "local"

    def __init__(self) -> None:
        self._backend: SandboxBackend | None = None

    @property
    def backend(self) -> SandboxBackend:
        """The sandbox backend (after :meth:`open`)."""
        if self._backend is None:
            raise LhtbError("the executor is not open")
        return self._backend

    async def open(
        self,
        backend: SandboxBackend | str | None,
        tasks: Sequence[Task],
        agents: Sequence[BenchmarkAgent],
    ) -> str:
        self._backend = resolve_backend(backend)
        return self._backend.name

    def capacity(self, tasks: Sequence[Task]) -> int:
        return default_concurrency(tasks).concurrency

    async def run(self, job: EpisodeJob, on_event: EventHook) -> Episode:
        return await run_job(job, self.backend, on_event)

    async def cleanup(self, run_id: str) -> int:
        return await self.backend.cleanup(run_id)
