"""Progress of a benchmark run: a live rich display, plain log lines, or nothing.

The live display is :class:`lhtb.episode._progress_rich.RichProgress` (it imports rich).
All take the same calls from :func:`lhtb.run_benchmark`; a
:class:`Tally` keeps the figures (done / running / failed, mean reward so far,
elapsed, ETA) so the displays only render them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import IO, Any, Literal, Protocol, runtime_checkable

import attrs

from lhtb.episode._record import ERROR_OUTCOMES, Episode
from lhtb.errors import LhtbError

__all__ = [
    "PHASES",
    "EpisodeProgress",
    "LineProgress",
    "LogProgress",
    "NullProgress",
    "ProgressArg",
    "ProgressReporter",
    "Tally",
    "make_reporter",
]

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


class LineProgress:
    """Plain readable lines as an episode moves (sandbox, turns, passes, outcome), for
    notebooks and other places where a live display cannot redraw."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream
        self._tally = Tally()

    def _say(self, text: str) -> None:
        stream = self._stream or sys.stdout
        stream.write(f"{time.strftime('%H:%M:%S')} {text}\n")
        stream.flush()

    def start(self, tally: Tally) -> None:
        """Say what will run."""
        self._tally = tally
        if tally.total > 1:
            self._say(f"{tally.total} episodes, {tally.concurrency} at a time")

    def episode_started(self, label: str) -> None:
        """Say it started."""
        self._say(f"{label}: started")

    def episode_event(self, label: str, event: str, fields: dict[str, Any]) -> None:
        """Say each phase, and each verifier pass's reward."""
        if event in PHASES:
            self._say(f"{label}: {PHASES[event].format(**fields)}")
        elif event == "verifier_pass_finished":
            reward = fields.get("reward")
            shown = "-" if reward is None else f"{reward:.3f}"
            self._say(f"{label}: pass {fields.get('pass_no')} {fields.get('outcome')}, {shown}")

    def episode_finished(self, label: str, episode: Episode, *, retry_in: float | None) -> None:
        """Say how it ended (and why, when it failed)."""
        reward = "-" if episode.reward is None else f"{episode.reward:.3f}"
        note = "" if retry_in is None else f", retrying in {retry_in:.0f}s"
        why = f" ({episode.error})" if episode.outcome in ERROR_OUTCOMES and episode.error else ""
        self._say(f"{label}: {episode.outcome}, reward {reward}{note}{why}")
        if self._tally.total > 1 and retry_in is None:
            self._say(self._tally.summary())

    def stop(self) -> None:
        """Nothing more to say."""


ProgressArg = Literal["auto", "rich", "lines", "quiet", "none"] | ProgressReporter | None
"""How a run shows progress: ``auto`` (a live display on a terminal, else plain
lines), ``rich`` (live display), ``lines`` (plain readable lines), ``quiet``
(``key=value`` log lines), ``none``/None, or your own :class:`ProgressReporter`."""


def make_reporter(progress: ProgressArg) -> ProgressReporter:
    """The display ``progress`` asks for.

    Raises:
        LhtbError: an unknown mode.
    """
    if progress is None or progress == "none":
        return NullProgress()
    if progress == "auto":
        progress = "rich" if sys.stderr.isatty() and "ipykernel" not in sys.modules else "lines"
    if progress == "rich":
        from lhtb.episode._progress_rich import RichProgress  # noqa: PLC0415 - rich loads on use

        return RichProgress()
    if progress == "lines":
        return LineProgress()
    if progress == "quiet":
        return LogProgress()
    if isinstance(progress, ProgressReporter):
        return progress
    raise LhtbError(
        f"unknown progress mode {progress!r}",
        fix="use 'auto', 'rich', 'lines', 'quiet', 'none', or a ProgressReporter",
    )


class EpisodeProgress:
    """A progress display fed by one episode's events (``run_episode(progress=...)``)."""

    def __init__(self, progress: ProgressArg, label: str) -> None:
        self.reporter = make_reporter(progress)
        self.label = label
        self.tally = Tally(total=1, concurrency=1)

    def start(self) -> None:
        """Open the display."""
        self.reporter.start(self.tally)
        self.tally.running[self.label] = "starting"
        self.reporter.episode_started(self.label)

    def event(self, event: str, fields: dict[str, Any]) -> None:
        """Pass an episode event on."""
        if event in PHASES and self.label in self.tally.running:
            self.tally.running[self.label] = PHASES[event].format(**fields)
        self.reporter.episode_event(self.label, event, fields)

    def finish(self, episode: Episode | None) -> None:
        """Show the end and close the display."""
        self.tally.running.pop(self.label, None)
        if episode is not None:
            self.tally.add_finished(episode)
            self.reporter.episode_finished(self.label, episode, retry_in=None)
        self.reporter.stop()


def seed(tally: Tally, episodes: Iterable[Episode]) -> None:
    """Count episodes a previous invocation finished."""
    for episode in episodes:
        tally.add_finished(episode, resumed=True)
