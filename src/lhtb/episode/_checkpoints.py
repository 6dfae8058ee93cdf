"""Hidden checkpoint grading: the agent's state graded on a schedule while it works.

Every ``interval_sec`` of the budget clock, while a turn is running, the
checkpointer holds the agent's sandbox handle (new calls wait; writes under
way finish first), freezes the sandbox, takes what a verifier pass would grade
(:meth:`Verifier.capture <lhtb.verify.Verifier.capture>`: the artifacts in
``separate`` isolation, a snapshot otherwise), thaws it and lets the calls
go on. The capture is then graded in a fresh verifier sandbox in the
background, with the episode's seed, while the agent works on. The agent is
told nothing: no feedback, no file or process in its sandbox, and no budget
beyond the capture's pause.

Grading never overlaps itself: a checkpoint that falls due while the previous
one is still being graded is skipped and counted. One that falls due while the
agent is not working (a verifier pass holds the sandbox) is not taken: the
pass grades that state. Verifier passes and captures never overlap (both
freeze and thaw the sandbox): the runner holds :meth:`Checkpointer.exclusive`
around every pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

import anyio
import attrs

from lhtb.episode._events import EventLog
from lhtb.episode._record import Checkpoint
from lhtb.episode._turn_gate import GatedSandbox
from lhtb.errors import LhtbError, SandboxUnavailableError
from lhtb.sandbox.base import ManagedSandbox
from lhtb.task._model import Task
from lhtb.verify._verifier import Capture, Verifier

__all__ = ["Checkpointer", "checkpoint_interval"]


def checkpoint_interval(task: Task, interval: float | None) -> float | None:
    """The episode's checkpoint interval: the argument, else the task's.

    Raises:
        LhtbError: not a positive number, or a task checkpoints cannot grade
            (multi-step, or tests that need the agent's running processes).
    """
    chosen = interval if interval is not None else task.verifier.checkpoint_interval_sec
    if chosen is None:
        return None
    if isinstance(chosen, bool) or not 0 < chosen < float("inf"):
        raise LhtbError(
            f"checkpoint_interval_sec must be a positive number of seconds, got {chosen!r}",
            where="run_episode(checkpoint_interval_sec=)",
        )
    if task.steps:
        raise LhtbError(
            f"task {task.name!r} has steps, whose budget restarts each step: "
            "checkpoints are not supported there",
            fix="run it without checkpoint_interval_sec",
        )
    if task.verifier.live:
        raise LhtbError(
            f"task {task.name!r} sets [verifier].live: its tests need the agent's running "
            "processes, but checkpoints grade a still capture",
            fix="run it without checkpoint_interval_sec",
        )
    return float(chosen)


@attrs.define
class Checkpointer:
    """Takes and grades an episode's checkpoints; see the module docstring.

    ``elapsed`` reads the budget clock; ``checkpoints`` is the episode's list,
    appended to as gradings finish. ``verifier`` must be this checkpointer's own
    (a copy of the episode's), so that its records never mix with the passes'.
    """

    verifier: Verifier
    sandbox: ManagedSandbox
    gate: GatedSandbox
    interval_sec: float
    budget_sec: float
    elapsed: Callable[[], float]
    events: EventLog
    checkpoints: list[Checkpoint]
    skipped: int = 0
    _taken: int = 0
    _lock: anyio.Lock = attrs.field(factory=anyio.Lock)
    _grading: asyncio.Task[None] | None = None
    _failure: BaseException | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Take checkpoints on schedule for the block; then wait for the last grading.

        Raises:
            SandboxError: the sandbox could not be thawed after a capture.
        """
        schedule = asyncio.ensure_future(self._schedule())
        try:
            yield
        finally:
            schedule.cancel()
            with anyio.CancelScope(shield=True):
                [ended] = await asyncio.gather(schedule, return_exceptions=True)
            if isinstance(ended, Exception):
                raise ended  # a bug in the schedule is not hidden
            if self._grading is not None:
                try:
                    await asyncio.shield(self._grading)
                except BaseException:
                    self._grading.cancel()
                    with anyio.CancelScope(shield=True):
                        await asyncio.gather(self._grading, return_exceptions=True)
                    raise
        if self._failure is not None and not isinstance(self._failure, SandboxUnavailableError):
            raise self._failure  # a sandbox the agent broke is the runner's to judge

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Keep captures out for the block (a verifier pass)."""
        async with self._lock:
            yield

    async def _schedule(self) -> None:
        due = self.interval_sec
        while due < self.budget_sec:
            while (wait := due - self.elapsed()) > 0:
                await anyio.sleep(wait)
            if not await self._take():
                return
            due = (math.floor(self.elapsed() / self.interval_sec) + 1) * self.interval_sec

    async def _take(self) -> bool:
        """Take the checkpoint that is due, if it can be; False when the thaw failed."""
        if not self.gate.is_open:  # not working: a verifier pass grades this state
            return True
        if self._grading is not None and not self._grading.done():
            self.skipped += 1
            self.events.emit("checkpoint_skipped", skipped=self.skipped)
            return True
        async with self._lock:
            if not self.gate.is_open:  # the turn ended meanwhile
                return True
            try:
                taken = await self._capture()
            except Exception as exc:  # the thaw failed
                self._failure = exc
                self.events.emit("checkpoint_failed", error=f"{type(exc).__name__}: {exc}")
                return False
        self._grading = asyncio.ensure_future(self._grade(*taken))
        return True

    async def _capture(self) -> tuple[int, datetime, float, Capture | str, float]:
        """Freeze, capture, thaw; a failed capture is returned as its reason.

        Raises:
            SandboxError: the thaw failed (the agent would stay frozen).
        """
        self._taken += 1
        started_at = datetime.now(UTC)
        clock = time.monotonic()
        capture: Capture | str
        async with self.gate.held():
            elapsed = self.elapsed()
            try:
                await self.sandbox.freeze_for_capture()
                capture = await self.verifier.capture(self.sandbox)
            except Exception as exc:
                capture = f"capture failed: {type(exc).__name__}: {exc}"
            finally:
                with anyio.CancelScope(shield=True):  # cancelled or not, the agent runs on
                    await self.sandbox.thaw()
        capture_sec = time.monotonic() - clock
        self.events.emit(
            "checkpoint_captured",
            checkpoint=self._taken,
            elapsed_sec=round(elapsed, 3),
            capture_sec=round(capture_sec, 4),
        )
        return self._taken, started_at, elapsed, capture, capture_sec

    async def _grade(
        self,
        number: int,
        started_at: datetime,
        elapsed: float,
        capture: Capture | str,
        capture_sec: float,
    ) -> None:
        clock = time.monotonic()
        if isinstance(capture, str):
            record = self._record(number, started_at, elapsed, capture_sec, 0.0, error=capture)
        else:
            try:
                graded = await self.verifier.grade_capture(
                    capture, number, name=f"checkpoint-{number:03d}"
                )
            except Exception as exc:  # an infrastructure failure costs the checkpoint only
                error = f"grading failed: {type(exc).__name__}: {exc}"
                record = self._record(
                    number, started_at, elapsed, capture_sec, time.monotonic() - clock, error=error
                )
            else:
                record = Checkpoint(
                    number=number,
                    started_at=started_at,
                    elapsed_sec=elapsed,
                    reward=graded.reward,
                    scorecard=graded.scorecard,
                    capture_sec=capture_sec,
                    grading_sec=graded.duration_sec,
                    error=graded.error,
                    log_dir=graded.log_dir,
                )
        self.checkpoints.append(record)
        self.events.emit(
            "checkpoint_graded",
            checkpoint=number,
            reward=record.reward,
            seconds=round(record.grading_sec, 3),
            error=record.error,
        )

    @staticmethod
    def _record(
        number: int,
        started_at: datetime,
        elapsed: float,
        capture_sec: float,
        grading_sec: float,
        *,
        error: str,
    ) -> Checkpoint:
        return Checkpoint(
            number=number,
            started_at=started_at,
            elapsed_sec=elapsed,
            reward=None,
            scorecard=None,
            capture_sec=capture_sec,
            grading_sec=grading_sec,
            error=error,
        )
