"""The workers of a benchmark run: start spreading, retries with backoff, failure records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import attrs

from lhtb.bench._executor import EpisodeExecutor, EpisodeJob
from lhtb.bench._slots import Slot
from lhtb.episode import _progress
from lhtb.episode._record import Episode
from lhtb.verify._seeds import derive_seed

__all__ = ["Backoff", "StartGate", "Sweep"]


@attrs.frozen
class Backoff:
    """Delay before the n-th retry: ``min(max_sec, initial_sec * factor ** (n - 1))``."""

    initial_sec: float = 5.0
    factor: float = 2.0
    max_sec: float = 120.0

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        return float(min(self.max_sec, self.initial_sec * self.factor ** max(0, retry - 1)))


class StartGate:
    """Spreads episode starts at least ``interval`` seconds apart."""

    def __init__(self, interval: float) -> None:
        self._interval = interval
        self._lock = anyio.Lock()
        self._next = 0.0

    async def wait(self) -> None:
        async with self._lock:
            now = anyio.current_time()
            if self._next > now:
                await anyio.sleep(self._next - now)
            self._next = max(now, self._next) + self._interval


@attrs.define
class Sweep:
    """The state of one invocation of :func:`run_benchmark`."""

    root: Path
    run_id: str
    executor: EpisodeExecutor
    limiter: anyio.CapacityLimiter
    gate: StartGate
    reporter: _progress.ProgressReporter
    tally: _progress.Tally
    retries: int
    backoff: Backoff
    episode_options: dict[str, Any]
    run_seed: int
    records: dict[str, Episode] = attrs.field(factory=dict)
    tries: int = 0

    async def run_slot(self, slot: Slot) -> None:
        existing = slot.tries(self.root)
        retry = existing[-1][0] + 1 if existing else 0
        failures = 0
        while True:
            async with self.limiter:
                await self.gate.wait()
                self.tally.running[slot.label] = "starting"
                self.reporter.episode_started(slot.label)
                try:
                    episode = await self._run_once(slot, slot.directory(self.root, retry))
                finally:
                    self.tally.running.pop(slot.label, None)
            self.tries += 1
            if episode.retryable and failures < self.retries:
                failures += 1
                delay = self.backoff.delay(failures)
                self.tally.retries += 1
                self.reporter.episode_finished(slot.label, episode, retry_in=delay)
                await anyio.sleep(delay)
                retry += 1
                continue
            self.records[slot.key] = episode
            self.tally.add_finished(episode)
            self.reporter.episode_finished(slot.label, episode, retry_in=None)
            return

    async def _run_once(self, slot: Slot, directory: Path) -> Episode:
        def on_event(event: str, fields: dict[str, Any]) -> None:
            self.reporter.episode_event(slot.label, event, fields)

        job = EpisodeJob(
            task=slot.task,
            agent=slot.agent,
            attempt=slot.attempt,
            directory=directory,
            run_id=self.run_id,
            options={
                **self.episode_options,
                "seed": derive_seed(self.run_seed, slot.task.checksum, slot.attempt),
            },
        )
        return await self.executor.run(job, on_event)
