"""Loading the task paths given on the command line."""

from __future__ import annotations

from pathlib import Path

from lhtb.errors import LhtbError, TaskLoadErrors, UnsupportedFeatureError
from lhtb.task._loader import load_runnable_tasks, load_tasks
from lhtb.task._model import Task


def collect_tasks(paths: tuple[Path, ...]) -> tuple[list[Task], list[LhtbError]]:
    """Every task under ``paths``, and every problem met on the way (all of them)."""
    tasks, problems, _ = _collect(paths, skip_unsupported=False)
    return tasks, problems


def collect_runnable_tasks(
    paths: tuple[Path, ...],
) -> tuple[list[Task], list[LhtbError], list[UnsupportedFeatureError]]:
    """Like :func:`collect_tasks`, with the tasks lhtb cannot run left out and listed."""
    return _collect(paths, skip_unsupported=True)


def _collect(
    paths: tuple[Path, ...], *, skip_unsupported: bool
) -> tuple[list[Task], list[LhtbError], list[UnsupportedFeatureError]]:
    tasks: list[Task] = []
    problems: list[LhtbError] = []
    skipped: list[UnsupportedFeatureError] = []
    for path in paths:
        try:
            if skip_unsupported:
                found, passed_over = load_runnable_tasks(path)
                tasks.extend(found)
                skipped.extend(passed_over)
            else:
                tasks.extend(load_tasks(path))
        except TaskLoadErrors as exc:
            problems.extend(exc.errors)
        except LhtbError as exc:
            problems.append(exc)
    return tasks, problems, skipped
