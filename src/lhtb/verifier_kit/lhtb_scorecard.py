"""Write an lhtb scorecard from a task's tests (stdlib only, Python >= 3.8).

The harness places this file beside the tests as ``/tests/lhtb_scorecard.py``::

    import sys
    sys.path.insert(0, "/tests")
    from lhtb_scorecard import Scorecard

    card = Scorecard()
    card.check("output_exists", os.path.exists("/app/out.csv"), visibility="public")
    card.tolerance("mean_error", err, target=0.0, tol=0.01, zero_at=0.1, weight=2)
    card.run("schema_valid", validate_schema)   # a crash scores 0, the rest still count
    card.write()                                 # /logs/verifier/scorecard.json

The reward is R = sum(weight * score) / sum(weight). Scores must lie in
[0, 1]; nothing is clamped: a bad score, weight, name or visibility raises
``ValueError`` (or ``TypeError``) at once so the test author sees the mistake.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DEFAULT_PATH", "Scorecard"]

DEFAULT_PATH = "/logs/verifier/scorecard.json"
_VISIBILITIES = ("public", "hidden")
_MAX_MESSAGE = 2000


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    return float(value)


class Scorecard:
    """Weighted subtasks collected by a test script, written as ``scorecard.json``."""

    def __init__(self) -> None:
        self._subtasks: list[dict[str, Any]] = []

    # -- recording ---------------------------------------------------------------------------

    def add(
        self,
        name: str,
        score: float,
        *,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> float:
        """Record a subtask with ``score`` in [0, 1]; returns the score."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"subtask name must be a non-empty string, got {name!r}")
        if any(entry["name"] == name for entry in self._subtasks):
            raise ValueError(f"subtask {name!r} was already recorded")
        value = _number(f"score of {name!r}", score)
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ValueError(f"score of {name!r} must be in [0, 1], got {score!r}")
        size = _number(f"weight of {name!r}", weight)
        if not (math.isfinite(size) and size > 0.0):
            raise ValueError(f"weight of {name!r} must be finite and > 0, got {weight!r}")
        if visibility not in _VISIBILITIES:
            raise ValueError(
                f"visibility of {name!r} must be 'public' or 'hidden', got {visibility!r}"
            )
        if message is not None and not isinstance(message, str):
            raise TypeError(f"message of {name!r} must be a string or None")
        entry: dict[str, Any] = {
            "name": name,
            "score": value,
            "weight": size,
            "visibility": visibility,
        }
        if message is not None:
            entry["message"] = message[:_MAX_MESSAGE]
        self._subtasks.append(entry)
        return value

    def check(
        self,
        name: str,
        passed: bool,
        *,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> bool:
        """Record a pass/fail subtask (1 or 0); returns ``passed``."""
        if not isinstance(passed, bool):
            raise TypeError(f"check {name!r} needs a bool, got {passed!r}")
        self.add(
            name, 1.0 if passed else 0.0, weight=weight, visibility=visibility, message=message
        )
        return passed

    def tolerance(
        self,
        name: str,
        value: float | None,
        *,
        target: float,
        tol: float,
        zero_at: float,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> float:
        """Record full credit within ``tol`` of ``target``, falling linearly to 0 at
        distance ``zero_at``. A missing (``None``) or NaN ``value`` scores 0."""
        goal = _number(f"target of {name!r}", target)
        near = _number(f"tol of {name!r}", tol)
        far = _number(f"zero_at of {name!r}", zero_at)
        if not (math.isfinite(goal) and math.isfinite(near) and math.isfinite(far)):
            raise ValueError(f"target, tol and zero_at of {name!r} must be finite")
        if not 0.0 <= near < far:
            raise ValueError(f"{name!r} needs 0 <= tol < zero_at, got tol={tol!r}, zero_at={far!r}")
        if value is None:
            return self.add(
                name, 0.0, weight=weight, visibility=visibility, message=message or "no value"
            )
        got = _number(f"value of {name!r}", value)
        if math.isnan(got):
            return self.add(
                name, 0.0, weight=weight, visibility=visibility, message=message or "value is NaN"
            )
        distance = abs(got - goal)
        if distance <= near:
            score = 1.0
        elif distance >= far:
            score = 0.0
        else:
            score = (far - distance) / (far - near)
        return self.add(name, score, weight=weight, visibility=visibility, message=message)

    def run(
        self,
        name: str,
        fn: Callable[[], object],
        *,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> float:
        """Call ``fn()`` and record its result; returns the score.

        ``None`` or ``True`` scores 1, ``False`` scores 0, a number is the score
        itself. If ``fn`` raises, the subtask scores 0 with the exception as its
        message, so one crashing check does not lose the others.
        """
        try:
            result = fn()
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return self.add(name, 0.0, weight=weight, visibility=visibility, message=text)
        if result is None or result is True:
            score = 1.0
        elif result is False:
            score = 0.0
        elif isinstance(result, (int, float)):
            score = float(result)
        else:
            raise TypeError(f"check {name!r} returned {result!r}; return None, a bool or a score")
        return self.add(name, score, weight=weight, visibility=visibility, message=message)

    # -- results -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._subtasks)

    @property
    def reward(self) -> float:
        """R = sum(weight * score) / sum(weight) over the recorded subtasks."""
        if not self._subtasks:
            raise ValueError("no subtasks recorded yet")
        try:
            total = math.fsum(entry["weight"] for entry in self._subtasks)
            weighted = math.fsum(e["weight"] * e["score"] for e in self._subtasks)
        except OverflowError:
            total = math.inf
        if not math.isfinite(total):
            raise ValueError("the subtask weights are too large to add up")
        return weighted / total

    def to_dict(self) -> dict[str, Any]:
        """The ``scorecard.json`` content."""
        return {"subtasks": [dict(entry) for entry in self._subtasks], "reward": self.reward}

    def write(self, path: str | os.PathLike[str] = DEFAULT_PATH, reward_txt: bool = False) -> float:
        """Write ``scorecard.json`` atomically, print a summary, and return the reward.

        With ``reward_txt=True`` a Harbor ``reward.txt`` holding the same reward
        is written beside it, so the task also runs on Harbor.
        """
        data = self.to_dict()
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(target, json.dumps(data, indent=2, allow_nan=False) + "\n")
        if reward_txt:
            _write_atomic(target.with_name("reward.txt"), repr(data["reward"]) + "\n")
        self._print_summary(target)
        return float(data["reward"])

    def _print_summary(self, target: Path) -> None:
        width = max(len(entry["name"]) for entry in self._subtasks)
        lines = [f"lhtb scorecard: {len(self._subtasks)} subtask(s) -> {target}"]
        for entry in self._subtasks:
            line = "  {:<6} {:<{w}}  score {:.3f}  weight {:g}".format(
                entry["visibility"], entry["name"], entry["score"], entry["weight"], w=width
            )
            first_line = entry.get("message", "").partition("\n")[0]
            if first_line:
                line += f"  ({first_line[:120]})"
            lines.append(line)
        lines.append(f"  reward {self.reward:.4f}")
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()


def _write_atomic(target: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix="." + target.name + ".", dir=str(target.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).chmod(0o644)
        Path(tmp).replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
