"""How lhtb's records look in a notebook (``_repr_html_``) and in a terminal (``__rich__``).

Each displayable class builds a :class:`View` (a title, a few facts, a table);
this module renders it as HTML or as a rich renderable (rich is imported only then).
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from lhtb.benchmark import BenchmarkResult
    from lhtb.episode import Episode
    from lhtb.leaderboard import Leaderboard
    from lhtb.scoring import Scorecard
    from lhtb.task import Task

__all__ = ["Displayable", "View"]


@attrs.frozen
class View:
    """What a record shows: a title, ``name: value`` facts, and a table."""

    title: str
    facts: tuple[tuple[str, str], ...] = ()
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    note: str = ""

    def html(self) -> str:
        """A self-contained HTML fragment."""
        parts = [f"<div class='lhtb'><strong>{escape(self.title)}</strong>"]
        if self.facts:
            items = "".join(
                f"<tr><th style='text-align:left'>{escape(k)}</th><td>{escape(v)}</td></tr>"
                for k, v in self.facts
            )
            parts.append(f"<table>{items}</table>")
        if self.rows:
            head = "".join(f"<th>{escape(h)}</th>" for h in self.headers)
            body = "".join(
                "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
                for row in self.rows
            )
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        if self.note:
            parts.append(f"<p><em>{escape(self.note)}</em></p>")
        parts.append("</div>")
        return "".join(parts)

    def rich(self) -> Any:
        """A rich renderable (a facts grid over a table)."""
        from rich.console import Group  # noqa: PLC0415 - rich loads only for display
        from rich.table import Table  # noqa: PLC0415
        from rich.text import Text  # noqa: PLC0415

        facts = Table.grid(padding=(0, 2))
        for key, value in self.facts:
            facts.add_row(Text(key, style="bold"), Text(value))
        parts: list[Any] = [Text(self.title, style="bold"), facts]
        if self.rows:
            table = Table(*self.headers)
            for row in self.rows:
                table.add_row(*(Text(cell) for cell in row))
            parts.append(table)
        if self.note:
            parts.append(Text(self.note, style="dim"))
        return Group(*parts)


class Displayable:
    """Gives a class ``_repr_html_`` and ``__rich__`` from its :meth:`_view`."""

    __slots__ = ()

    def _view(self) -> View:
        raise NotImplementedError

    def _repr_html_(self) -> str:
        """HTML for Jupyter."""
        return self._view().html()

    def __rich__(self) -> Any:
        """A rich renderable for ``rich.print``."""
        return self._view().rich()


def number(value: float | None, digits: int = 3) -> str:
    """A number for a table; ``-`` for unknown."""
    return "-" if value is None else f"{value:.{digits}f}"


def task_view(task: Task) -> View:
    """A task: the short facts, not the instruction."""
    budget = "-" if task.budget_sec is None else f"{task.budget_sec:g} s"
    first_line = task.instruction.strip().splitlines()[0] if task.instruction.strip() else ""
    return View(
        f"Task {task.name}",
        (
            ("category", task.category or "-"),
            ("budget", budget),
            ("continue until timeout", "yes" if task.agent.continue_until_timeout else "no"),
            ("isolation", str(task.verifier.isolation)),
            ("subtasks", str(len(task.verifier.subtasks))),
            ("instruction", first_line[:120] + ("..." if len(first_line) > 120 else "")),
        ),
    )


def subtask_rows(scorecard: Scorecard | None) -> tuple[tuple[str, ...], ...]:
    """One row per subtask: name, score, weight, visibility, message."""
    if scorecard is None:
        return ()
    return tuple(
        (s.name, number(s.score), f"{s.weight:g}", str(s.visibility), s.message or "")
        for s in scorecard.subtasks
    )


SUBTASK_HEADERS = ("subtask", "score", "weight", "visibility", "message")


def episode_view(episode: Episode) -> View:
    """An episode: outcome, reward, passes, and the final scorecard per subtask."""
    config = episode.config
    facts = [
        ("outcome", str(episode.outcome)),
        ("reward", number(episode.reward)),
        ("best interim reward", number(episode.best_reward)),
        ("turns / passes", f"{len(episode.turns)} / {len(episode.passes)}"),
        ("time", f"{episode.timings.total_sec:.1f} s"),
        ("model", config.model or "-"),
    ]
    if episode.error:
        facts.append(("error", episode.error))
    return View(
        f"Episode {episode.id}: {config.task_name} / {config.agent}",
        tuple(facts),
        SUBTASK_HEADERS,
        subtask_rows(episode.scorecard),
    )


def scorecard_view(scorecard: Scorecard) -> View:
    """A scorecard: the reward and its subtasks."""
    return View(
        f"Scorecard: reward {number(scorecard.reward)}",
        tuple((k, number(v)) for k, v in scorecard.values.items()),
        SUBTASK_HEADERS,
        subtask_rows(scorecard),
    )


def leaderboard_rows(board: Leaderboard) -> Iterable[tuple[str, ...]]:
    for rank, row in enumerate(board.rows, start=1):
        yield (
            str(rank),
            row.agent,
            row.model or "-",
            number(row.mean_reward),
            f"{row.solved_rate:.0%}",
            str(row.episodes),
            str(row.errors),
        )
    for row in board.apart:
        yield ("*", row.agent, row.model or "-", number(row.mean_reward),
               f"{row.solved_rate:.0%}", str(row.episodes), str(row.errors))  # fmt: skip


def leaderboard_view(board: Leaderboard) -> View:
    """The ranking (rows marked * are not comparable)."""
    return View(
        f"Leaderboard ({len(board.tasks)} tasks; errors count 0)",
        headers=("#", "agent", "model", "mean reward", "solved", "episodes", "errors"),
        rows=tuple(leaderboard_rows(board)),
        note="* not comparable (diagnostic feedback or a changed budget)" if board.apart else "",
    )


def result_view(result: BenchmarkResult) -> View:
    """A benchmark run: one row per episode."""
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
        for e in result.episodes
    )
    return View(
        f"Benchmark run {result.run_id}",
        (
            ("directory", str(result.output_dir)),
            ("episodes", str(len(result.episodes))),
            ("tries this time", str(result.tries)),
            ("resumed", str(result.resumed)),
        ),
        ("task", "agent", "attempt", "outcome", "reward", "passes", "error"),
        rows,
    )
