"""Progress of a benchmark run: a live rich display, plain log lines, or nothing.

The live display is :class:`lhtb._progress_rich.RichProgress` (it imports rich).
All take the same calls from :func:`lhtb.run_benchmark`; a
:class:`Tally` keeps the figures (done / running / failed, mean reward so far,
elapsed, ETA) so the displays only render them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import IO, Any, Protocol, runtime_checkable

import attrs

from lhtb.episode import ERROR_OUTCOMES, Episode

__all__ = ["PHASES", "LogProgress", "NullProgress", "ProgressReporter", "Tally"]

PHASES = {
    "provision_started": "starting sandbox",
    "agent_turn_started": "agent turn {turn}",
    "verifier_pass_started": "verifier pass {pass_no}",
}


def _clock(seconds: float) -> str:
    seconds = int(max(0.0, seconds))
    return f"{seconds // 3600:d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


@attrs.define
class Tally:
    """Running figures of one benchmark invocation."""

    total: int = 0
    resumed: int = 0
    done: int = 0
    failed: int = 0
    retries: int = 0
    reward_sum: float = 0.0
    concurrency: int = 0
    started: float = attrs.field(factory=time.monotonic)
    running: dict[str, str] = attrs.field(factory=dict)

    @property
    def finished(self) -> int:
        """Episodes finished, including those a previous invocation finished."""
        return self.resumed + self.done

    @property
    def mean_reward(self) -> float | None:
        """Mean final reward so far (no reward counts 0)."""
        return self.reward_sum / self.finished if self.finished else None

    @property
    def elapsed(self) -> float:
        """Seconds since this invocation started."""
        return time.monotonic() - self.started

    @property
    def eta(self) -> float | None:
        """Seconds left, extrapolated from this invocation's pace."""
        if not self.done:
            return None
        return self.elapsed / self.done * (self.total - self.finished)

    def add_finished(self, episode: Episode, *, resumed: bool = False) -> None:
        """Count a final episode record."""
        if resumed:
            self.resumed += 1
        else:
            self.done += 1
        self.reward_sum += episode.reward or 0.0
        if episode.outcome in ERROR_OUTCOMES:
            self.failed += 1

    def summary(self) -> str:
        """``12/24 done, 4 running, 1 failed, mean reward 0.412, 0:03:10 elapsed, ETA 0:03:05``."""
        mean = "-" if self.mean_reward is None else f"{self.mean_reward:.3f}"
        eta = "-" if self.eta is None else _clock(self.eta)
        return (
            f"{self.finished}/{self.total} done, {len(self.running)} running, "
            f"{self.failed} failed, mean reward {mean}, {_clock(self.elapsed)} elapsed, ETA {eta}"
        )


@runtime_checkable
class ProgressReporter(Protocol):
    """What :func:`lhtb.run_benchmark` tells a progress display."""

    def start(self, tally: Tally) -> None:
        """The run begins; ``tally`` is live for the whole run."""

    def episode_started(self, label: str) -> None:
        """An episode got a slot."""

    def episode_event(self, label: str, event: str, fields: dict[str, Any]) -> None:
        """An event of a running episode."""

    def episode_finished(self, label: str, episode: Episode, *, retry_in: float | None) -> None:
        """An episode ended; ``retry_in`` is the backoff before its retry, if any."""

    def stop(self) -> None:
        """The run ended (normally or not)."""


class NullProgress:
    """Shows nothing."""

    def start(self, tally: Tally) -> None:
        """Ignore."""

    def episode_started(self, label: str) -> None:
        """Ignore."""

    def episode_event(self, label: str, event: str, fields: dict[str, Any]) -> None:
        """Ignore."""

    def episode_finished(self, label: str, episode: Episode, *, retry_in: float | None) -> None:
        """Ignore."""

    def stop(self) -> None:
        """Ignore."""


class LogProgress:
    """Plain ``key=value`` lines, one per start and finish, for logs and CI."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream
        self._tally = Tally()

    def _line(self, event: str, **fields: Any) -> None:
        parts = " ".join(f"{k}={v}" for k, v in fields.items() if v is not None)
        stream = self._stream or sys.stderr
        stream.write(f"{time.strftime('%H:%M:%S')} {event} {parts}\n")
        stream.flush()

    def start(self, tally: Tally) -> None:
        """Log the plan."""
        self._tally = tally
        self._line(
            "run_started",
            episodes=tally.total,
            already_done=tally.resumed,
            concurrency=tally.concurrency,
        )

    def episode_started(self, label: str) -> None:
        """Log the start."""
        self._line("episode_started", episode=label)

    def episode_event(self, label: str, event: str, fields: dict[str, Any]) -> None:
        """Only starts and ends are logged."""

    def episode_finished(self, label: str, episode: Episode, *, retry_in: float | None) -> None:
        """Log the outcome and the run's figures."""
        reward = None if episode.reward is None else f"{episode.reward:.3f}"
        retry = None if retry_in is None else f"{retry_in:.1f}s"
        self._line(
            "episode_finished",
            episode=label,
            outcome=str(episode.outcome),
            reward=reward,
            retry_in=retry,
        )
        if retry_in is None:
            self._line("progress", summary=f'"{self._tally.summary()}"')

    def stop(self) -> None:
        """Log the final figures."""
        self._line("run_finished", summary=f'"{self._tally.summary()}"')


def seed(tally: Tally, episodes: Iterable[Episode]) -> None:
    """Count episodes a previous invocation finished."""
    for episode in episodes:
        tally.add_finished(episode, resumed=True)
