"""The live rich display of a benchmark run (a module of its own: rich loads only when used)."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from lhtb.episode._progress import PHASES, Tally
from lhtb.episode._record import Episode

__all__ = ["RichProgress"]

_MAX_RUNNING_ROWS = 12


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
        if event in PHASES and label in self._tally.running:
            self._tally.running[label] = PHASES[event].format(**fields)

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
