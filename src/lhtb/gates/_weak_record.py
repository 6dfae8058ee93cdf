"""Weak-solution gate results kept by task checksum, so an unchanged task is not re-run.

``lhtb check --record FILE`` reads FILE first: a task whose checksum (every file of
its directory: instruction, tests, weak solutions, solution, environment) is
recorded there skips the weak-solution gate, and its recorded results are
shown instead. Every task whose weak gate runs and passes is written back. The
oracle and nop gates always run. The file is JSON, one entry per task name.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from datetime import date
from pathlib import Path

import attrs

from lhtb.errors import LhtbError
from lhtb.task._model import Task

__all__ = ["RecordedWeak", "WeakRecord", "new_record", "read_records", "write_records"]


@attrs.frozen
class RecordedWeak:
    """One weak solution's passing result."""

    name: str
    seed: int
    reward: float


@attrs.frozen
class WeakRecord:
    """A task's passing weak gate, valid while its directory's checksum stays ``checksum``."""

    task: str
    checksum: str
    checked: str
    lhtb_version: str
    weak: tuple[RecordedWeak, ...]

    def holds_for(self, task: Task) -> bool:
        """The task is byte for byte the one that was checked."""
        return bool(task.checksum) and task.checksum == self.checksum


def _bad(path: Path, what: str) -> LhtbError:
    return LhtbError(
        f"the weak-gate record is unreadable: {what}",
        where=str(path),
        fix="restore it from git, or delete it and run `lhtb check TASKS --record FILE` "
        "to check every task again",
    )


def _parse(path: Path, name: str, entry: object) -> WeakRecord:
    if not isinstance(entry, dict):
        raise _bad(path, f"entry {name!r} is not an object")
    try:
        weak = tuple(
            RecordedWeak(name=str(w["name"]), seed=int(w["seed"]), reward=float(w["reward"]))
            for w in entry["weak"]
        )
        return WeakRecord(
            task=name,
            checksum=str(entry["checksum"]),
            checked=str(entry["checked"]),
            lhtb_version=str(entry["lhtb_version"]),
            weak=weak,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise _bad(path, f"entry {name!r}: {exc!r}") from exc


def read_records(path: Path) -> dict[str, WeakRecord]:
    """The records in ``path`` by task name (none when the file does not exist yet).

    Raises:
        LhtbError: the file is not a record file.
    """
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, str(exc)) from exc
    if not isinstance(data, dict):
        raise _bad(path, "the top level is not an object")
    return {name: _parse(path, name, entry) for name, entry in data.items()}


def new_record(task: Task, weak: Mapping[str, tuple[int, float]], version: str) -> WeakRecord:
    """The record of ``task``'s passing weak gate: seed and reward per weak solution."""
    return WeakRecord(
        task=task.name,
        checksum=task.checksum,
        checked=date.today().isoformat(),
        lhtb_version=version,
        weak=tuple(RecordedWeak(n, s, r) for n, (s, r) in sorted(weak.items())),
    )


def write_records(path: Path, records: Mapping[str, WeakRecord]) -> None:
    """Write ``records`` to ``path`` atomically, sorted by task name."""
    data = {
        name: {
            "checksum": r.checksum,
            "checked": r.checked,
            "lhtb_version": r.lhtb_version,
            "weak": [
                {"name": w.name, "seed": w.seed, "reward": round(w.reward, 6)} for w in r.weak
            ],
        }
        for name, r in sorted(records.items())
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w") as out:
        json.dump(data, out, indent=2)
        out.write("\n")
    Path(temporary).replace(path)
