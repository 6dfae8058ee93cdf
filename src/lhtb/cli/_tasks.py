"""Loading the task paths given on the command line."""

from __future__ import annotations

from pathlib import Path

from lhtb.errors import LhtbError, TaskLoadErrors
from lhtb.loader import load_tasks
from lhtb.task import Task


def collect_tasks(paths: tuple[Path, ...]) -> tuple[list[Task], list[LhtbError]]:
    """Every task under ``paths``, and every problem met on the way (all of them)."""
    tasks: list[Task] = []
    problems: list[LhtbError] = []
    for path in paths:
        try:
            tasks.extend(load_tasks(path))
        except TaskLoadErrors as exc:
            problems.extend(exc.errors)
        except LhtbError as exc:
            problems.append(exc)
    return tasks, problems
