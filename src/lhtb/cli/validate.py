"""``lhtb validate``: load tasks and show what they declare."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from lhtb.cli._tasks import collect_tasks
from lhtb.task._model import Task, Visibility, verifies_live


def _budget(task: Task) -> str:
    return "-" if task.budget_sec is None else f"{task.budget_sec:g}s"


def _subtask_summary(task: Task) -> str:
    specs = task.verifier.subtasks
    if not specs:
        return "-"
    parts = []
    for visibility in Visibility:
        chosen = [s for s in specs if s.visibility is visibility]
        if chosen:
            parts.append(f"{len(chosen)} {visibility} (w={sum(s.weight for s in chosen):g})")
    return ", ".join(parts)


def _continue(task: Task) -> str:
    if task.steps:
        return f"{len(task.steps)} steps"
    return "yes" if task.agent.continue_until_timeout else "no"


def task_table(tasks: list[Task]) -> Table:
    """A rich table with one row per task."""
    table = Table(title=f"{len(tasks)} task(s)")
    table.add_column("task", no_wrap=True)
    for column in ("category", "tier", "budget", "continue", "isolation", "subtasks"):
        table.add_column(column)
    for task in tasks:
        table.add_row(
            task.name,
            task.category or "-",
            task.tier or "-",
            _budget(task),
            _continue(task),
            f"{task.verifier.isolation}{' (live)' if verifies_live(task) else ''}",
            _subtask_summary(task),
        )
    return table


def subtask_table(task: Task) -> Table:
    """The subtasks a task declares in ``[[verifier.subtasks]]``."""
    table = Table(title=f"{task.name}: subtasks")
    for column in ("subtask", "weight", "visibility", "description"):
        table.add_column(column)
    for spec in task.verifier.subtasks:
        visibility = f"{spec.visibility}{', live' if spec.live else ''}"
        table.add_row(spec.name, f"{spec.weight:g}", visibility, spec.description)
    return table


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Load the tasks under PATHS and list them; exit 1 listing every problem found."""
    console = Console(width=None if sys.stdout.isatty() else 200)
    tasks, problems = collect_tasks(paths)
    if tasks:
        console.print(task_table(tasks))
        for task in tasks:
            if task.verifier.subtasks:
                console.print(subtask_table(task))
    if problems:
        err = Console(stderr=True)
        err.print(f"[bold red]{len(problems)} problem(s):[/]")
        for problem in problems:
            err.print(f"  - {problem}", markup=False, highlight=False)
        raise SystemExit(1)
