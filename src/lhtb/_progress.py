"""Progress of a benchmark run: a live rich display, plain log lines, or nothing.

All three take the same calls from :func:`lhtb.run_benchmark`; a
:class:`Tally` keeps the figures (done / running / failed, mean reward so far,
elapsed, ETA) so the displays only render them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import IO, Any, Protocol, runtime_checkable

import attrs
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from lhtb.episode import ERROR_OUTCOMES, Episode

__all__ = ["LogProgress", "NullProgress", "ProgressReporter", "RichProgress", "Tally"]

_PHASES = {
    "provision_started": "starting sandbox",
    "agent_turn_started": "agent turn {turn}",
    "verifier_pass_started": "verifier pass {pass_no}",
}

_MAX_RUNNING_ROWS = 12


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


class _View:
    """The live renderable: a bar, the figures, and what each running episode does."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    def __rich__(self) -> RenderableType:
        tally = self.tally
        bar = ProgressBar(total=max(tally.total, 1), completed=tally.finished, width=40)
        header = Table.grid(padding=(0, 1))
        header.add_row(bar, Text(tally.summary()))
        running = Table(box=None, show_header=False, padding=(0, 1))
        for label, phase in list(tally.running.items())[:_MAX_RUNNING_ROWS]:
            running.add_row(Text(label, style="cyan"), Text(phase, style="dim"))
        hidden = len(tally.running) - _MAX_RUNNING_ROWS
        if hidden > 0:
            running.add_row(Text(f"... {hidden} more", style="dim"), Text(""))
        return Group(header, running)


class RichProgress:
    """A live terminal display (refreshed 4 times a second)."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._live: Live | None = None
        self._tally = Tally()

    def start(self, tally: Tally) -> None:
        """Open the live display."""
        self._tally = tally
        self._live = Live(
            _View(tally),
            console=self._console,
            refresh_per_second=4,
            transient=False,
        )
        self._live.start()

    def episode_started(self, label: str) -> None:
        """Shown through the tally's running list."""

    def episode_event(self, label: str, event: str, fields: dict[str, Any]) -> None:
        """Update the episode's phase."""
        if event in _PHASES and label in self._tally.running:
            self._tally.running[label] = _PHASES[event].format(**fields)

    def episode_finished(self, label: str, episode: Episode, *, retry_in: float | None) -> None:
        """Print a line above the live display."""
        reward = "-" if episode.reward is None else f"{episode.reward:.3f}"
        note = "" if retry_in is None else f" (retrying in {retry_in:.0f}s)"
        line = f"{label}: {episode.outcome} reward {reward}{note}"
        if self._live is not None:
            self._live.console.print(line, highlight=False, markup=False)

    def stop(self) -> None:
        """Close the display, leaving the last frame."""
        if self._live is not None:
            self._live.stop()
            self._live = None


def seed(tally: Tally, episodes: Iterable[Episode]) -> None:
    """Count episodes a previous invocation finished."""
    for episode in episodes:
        tally.add_finished(episode, resumed=True)
