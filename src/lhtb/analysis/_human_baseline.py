"""Measured human time-to-solve per task, from episodes people played (``lhtb baseline``).

A person's episode has agent ``human:<name>`` (``lhtb play`` records it so).
Its time-to-solve is the time from the start of the person's first turn to the
start of the first verifier pass that reached the leaderboard's solved
threshold (R >= 0.95), counted only when the episode's final reward is solved
too. A person who solved a task more than once counts with their first solved
episode (a replay is not a fresh attempt); the task's baseline is the median
over people.

The baseline file is JSON::

    {"schema": "lhtb-human-baseline/1",
     "tasks": {"TASK": {"minutes": 42.0, "people": 3, "times_min": {"alice": 40.0, ...},
                        "unsolved_episodes": 1}}}
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from statistics import median
from typing import Any

import attrs

from lhtb.analysis._leaderboard import SOLVED_THRESHOLD, final_records
from lhtb.episode._record import Episode
from lhtb.errors import LhtbError

__all__ = ["BASELINE_SCHEMA", "HUMAN_PREFIX", "HumanBaseline", "TaskBaseline", "time_to_solve"]

BASELINE_SCHEMA = "lhtb-human-baseline/1"
HUMAN_PREFIX = "human:"
"""Agent names with this prefix are people."""


def time_to_solve(episode: Episode) -> float | None:
    """Seconds from the first turn's start to the first solving pass; None if unsolved."""
    if episode.reward is None or episode.reward < SOLVED_THRESHOLD:
        return None
    solving = next(
        (p for p in episode.passes if p.reward is not None and p.reward >= SOLVED_THRESHOLD), None
    )
    if solving is None:
        return None
    start = episode.turns[0].started_at if episode.turns else episode.started_at
    return max((solving.started_at - start).total_seconds(), 0.0)


@attrs.frozen
class TaskBaseline:
    """One task's measured time: the median over people of their time-to-solve."""

    minutes: float
    times_min: Mapping[str, float]
    """Each person's time-to-solve in minutes."""
    unsolved_episodes: int = 0

    @property
    def people(self) -> int:
        """How many people solved the task."""
        return len(self.times_min)


@attrs.frozen
class HumanBaseline:
    """Per-task measured human times (minutes), keyed by task name."""

    tasks: Mapping[str, TaskBaseline]
    unsolved_only: tuple[str, ...] = ()
    """Tasks people played but nobody solved: no time, listed for the record."""

    @property
    def minutes(self) -> dict[str, float]:
        """Task name -> median minutes."""
        return {task: base.minutes for task, base in self.tasks.items()}

    @classmethod
    def from_episodes(cls, episodes: Iterable[Episode]) -> HumanBaseline:
        """The baseline of the ``human:*`` episodes among ``episodes`` (others are ignored)."""
        first: dict[str, dict[str, tuple[Any, float]]] = defaultdict(dict)
        unsolved: dict[str, int] = defaultdict(int)
        for episode in episodes:
            agent = episode.config.agent
            if not agent.startswith(HUMAN_PREFIX):
                continue
            task, person = episode.config.task_name, agent.removeprefix(HUMAN_PREFIX)
            seconds = time_to_solve(episode)
            if seconds is None:
                unsolved[task] += 1
                continue
            known = first[task].get(person)
            if known is None or episode.started_at < known[0]:
                first[task][person] = (episode.started_at, seconds / 60)
        tasks = {
            task: TaskBaseline(
                minutes=median(t for _, t in people.values()),
                times_min={p: t for p, (_, t) in sorted(people.items())},
                unsolved_episodes=unsolved.get(task, 0),
            )
            for task, people in sorted(first.items())
        }
        return cls(tasks=tasks, unsolved_only=tuple(sorted(set(unsolved) - set(tasks))))

    @classmethod
    def from_dirs(cls, *run_dirs: str | Path) -> HumanBaseline:
        """The baseline of every human episode under the run directories (latest try per slot).

        Raises:
            LhtbError: a directory is missing or holds no human episode.
        """
        records: list[Episode] = []
        for run_dir in map(Path, run_dirs):
            if not run_dir.is_dir():
                raise LhtbError("not a directory", where=str(run_dir), fix="give a run directory")
            records.extend(e for _, e in final_records(run_dir))
        if not any(e.config.agent.startswith(HUMAN_PREFIX) for e in records):
            raise LhtbError(
                f"no human episodes (agent `{HUMAN_PREFIX}<name>`) found",
                where=", ".join(map(str, run_dirs)),
                fix="record people's episodes with `lhtb play TASK` and give their run directories",
            )
        return cls.from_episodes(records)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of the baseline file."""
        return {
            "schema": BASELINE_SCHEMA,
            "tasks": {
                task: {
                    "minutes": base.minutes,
                    "people": base.people,
                    "times_min": dict(base.times_min),
                    "unsolved_episodes": base.unsolved_episodes,
                }
                for task, base in self.tasks.items()
            },
            "unsolved_only": list(self.unsolved_only),
        }

    def save(self, path: str | Path) -> Path:
        """Write the baseline file and return its path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | Path) -> HumanBaseline:
        """Read a baseline file written by :meth:`save` (or by hand in its format).

        Raises:
            LhtbError: the file is missing, not JSON, or not a baseline.
        """
        source = Path(path)
        fix = "write it with `lhtb baseline RUN_DIRS -o FILE`"
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LhtbError(
                f"cannot read the baseline file ({exc})", where=str(source), fix=fix
            ) from None
        if not isinstance(data, dict) or data.get("schema") != BASELINE_SCHEMA:
            raise LhtbError(
                f"not a baseline file (schema {BASELINE_SCHEMA!r} expected)",
                where=str(source),
                fix=fix,
            )
        tasks: dict[str, TaskBaseline] = {}
        for task, entry in (data.get("tasks") or {}).items():
            minutes = entry.get("minutes") if isinstance(entry, dict) else None
            if isinstance(minutes, bool) or not isinstance(minutes, int | float) or minutes <= 0:
                raise LhtbError(
                    f"task {task!r}: `minutes` must be a positive number, got {minutes!r}",
                    where=str(source),
                    fix=fix,
                )
            times = entry.get("times_min") or {}
            tasks[task] = TaskBaseline(
                minutes=float(minutes),
                times_min={str(p): float(t) for p, t in times.items()},
                unsolved_episodes=int(entry.get("unsolved_episodes", 0)),
            )
        return cls(tasks=tasks, unsolved_only=tuple(data.get("unsolved_only") or ()))
