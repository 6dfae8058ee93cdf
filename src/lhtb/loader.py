"""Loading Harbor / Terminal-Bench / LHTB task directories into :class:`~lhtb.task.Task`."""

from __future__ import annotations

from pathlib import Path

from lhtb.task import Task

__all__ = ["load_task", "load_tasks"]


def load_task(path: str | Path) -> Task:
    """Load and validate one task directory."""
    raise NotImplementedError


def load_tasks(path: str | Path) -> list[Task]:
    """Load every task under ``path`` (a task dir or a directory of task dirs)."""
    raise NotImplementedError
