"""METR's 50% time horizon: how long a task an agent solves half of the time.

Each task has a time in minutes: the measured human time-to-solve of a
:class:`~lhtb.analysis.HumanBaseline` where there is one, else the task's
``[metadata].expert_time_estimate_min``. Per agent, a logistic regression of
solved (each task's share of solved attempts) on ``log2(minutes)`` gives
P(solved); the horizon is the time where it is 0.5, ``2 ** (-a / b)``, with a
bootstrap 95% interval over tasks (fixed seed: the same records give the same
interval).

Where no finite fit exists the horizon says so instead of inventing a number:
every task solved (the horizon lies above the longest task), none solved
(below the shortest), solved and unsolved tasks separated by time (between the
two groups), fewer than two timed tasks, or one time for every task.
"""

from __future__ import annotations

import enum
import math
import random
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

import attrs

from lhtb.episode._record import Episode

__all__ = [
    "BOOTSTRAP_SAMPLES",
    "BOOTSTRAP_SEED",
    "EXPERT_TIME_KEY",
    "Horizon",
    "HorizonStatus",
    "LogisticFit",
    "TaskPoint",
    "expert_minutes",
    "fit_horizon",
    "fit_logistic",
    "task_minutes",
    "task_points",
]

BOOTSTRAP_SAMPLES = 1000
"""Resamples of the task set for the 95% interval."""
BOOTSTRAP_SEED = 0
"""Seed of the resampling, so that the interval is reproducible."""
EXPERT_TIME_KEY = "expert_time_estimate_min"
"""The ``[metadata]`` key with a task's estimated expert time."""
_MAX_ITERATIONS = 100
_TOLERANCE = 1e-10


class HorizonStatus(enum.StrEnum):
    """Whether the 50% point was estimated, and if not, what is known of it."""

    ESTIMATED = "estimated"
    ABOVE = "above"
    """Every task solved: the horizon is above the longest task (``bound``)."""
    BELOW = "below"
    """No task solved: the horizon is below the shortest task (``bound``)."""
    SEPARATED = "separated"
    """Solved and unsolved tasks do not overlap in time: the horizon is between ``range``."""
    NOT_ESTIMABLE = "not estimable"
    """Fewer than two timed tasks, one time for all, or success rising with time."""


@attrs.frozen
class TaskPoint:
    """One task of one agent: its time and the share of its attempts solved."""

    task: str
    minutes: float
    solved: float


@attrs.frozen
class LogisticFit:
    """P(solved) = 1 / (1 + exp(-(intercept + slope * log2(minutes))))."""

    intercept: float
    slope: float

    def probability(self, minutes: float) -> float:
        """The fitted chance of solving a task of ``minutes``."""
        return _sigmoid(self.intercept + self.slope * math.log2(minutes))

    @property
    def horizon_minutes(self) -> float:
        """Where the fitted probability is 0.5."""
        return float(2.0 ** (-self.intercept / self.slope))


@attrs.frozen
class Horizon:
    """One agent's 50% time horizon, or what can be said when it cannot be fitted."""

    status: HorizonStatus
    tasks: int
    """Tasks with a time that entered the fit."""
    untimed: int
    """Tasks left out because they have neither a measured nor an estimated time."""
    minutes: float | None = None
    low: float | None = None
    """Lower end of the bootstrap 95% interval (minutes)."""
    high: float | None = None
    """Upper end of the interval; None with ``status`` estimated means unbounded above."""
    bound: tuple[float, float] | None = None
    """For above/below/separated: the range the horizon lies in (minutes; inf for no end)."""
    fit: LogisticFit | None = None
    reason: str = ""
    points: tuple[TaskPoint, ...] = ()

    @property
    def estimated(self) -> bool:
        """A finite fitted horizon exists."""
        return self.status is HorizonStatus.ESTIMATED

    def describe(self) -> str:
        """A short text for tables: ``42.0 (12.3-99.0)``, ``> 90``, ``4-16 (separated)``.

        Quasi-separated tasks (solved and unsolved meet at one time, where the
        fit's limit puts the horizon) show that one time: ``4 (separated)``.
        """
        if self.status is HorizonStatus.ESTIMATED and self.minutes is not None:
            high = "inf" if self.high is None else f"{self.high:.1f}"
            low = "?" if self.low is None else f"{self.low:.1f}"
            return f"{self.minutes:.1f} ({low}-{high})"
        if self.bound is not None and self.status is HorizonStatus.ABOVE:
            return f"> {self.bound[0]:g}"
        if self.bound is not None and self.status is HorizonStatus.BELOW:
            return f"< {self.bound[1]:g}"
        if self.bound is not None and self.bound[0] == self.bound[1]:
            return f"{self.bound[0]:g} (separated)"
        if self.bound is not None:
            return f"{self.bound[0]:g}-{self.bound[1]:g} (separated)"
        return "not estimable"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: infinite bounds become None."""
        bound = None if self.bound is None else [_finite(b) for b in self.bound]
        return {
            "status": str(self.status),
            "minutes": self.minutes,
            "low": self.low,
            "high": self.high,
            "bound": bound,
            "tasks": self.tasks,
            "untimed": self.untimed,
            "intercept": None if self.fit is None else self.fit.intercept,
            "slope": None if self.fit is None else self.fit.slope,
            "reason": self.reason,
        }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _log_likelihood(xs: Sequence[float], ys: Sequence[float], a: float, b: float) -> float:
    total = 0.0
    for x, y in zip(xs, ys, strict=True):
        z = a + b * x
        # log(sigmoid(z)) and log(1 - sigmoid(z)) without overflow
        log_p = -math.log1p(math.exp(-z)) if z >= 0 else z - math.log1p(math.exp(z))
        log_q = log_p - z
        total += y * log_p + (1.0 - y) * log_q
    return total


def fit_logistic(xs: Sequence[float], ys: Sequence[float]) -> LogisticFit:
    """Maximum-likelihood logistic regression of ``ys`` (in [0, 1]) on ``xs`` (Newton).

    The caller ensures a finite maximum exists (:func:`fit_horizon` checks
    separation first); Newton steps are halved until the likelihood rises.

    Raises:
        ArithmeticError: the iteration did not converge.
    """
    a, b = math.log((fmean(ys) + 1e-9) / (1.0 - fmean(ys) + 1e-9)), 0.0
    current = _log_likelihood(xs, ys, a, b)
    for _ in range(_MAX_ITERATIONS):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys, strict=True):
            p = _sigmoid(a + b * x)
            w = p * (1.0 - p)
            ga += y - p
            gb += (y - p) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        if det <= 0:
            raise ArithmeticError("singular information matrix")
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        step = 1.0
        while True:
            na, nb = a + step * da, b + step * db
            new = _log_likelihood(xs, ys, na, nb)
            if new >= current - 1e-12 or step < 1e-6:
                break
            step /= 2
        a, b, previous, current = na, nb, current, new
        if abs(step * da) + abs(step * db) < _TOLERANCE or abs(current - previous) < 1e-14:
            return LogisticFit(intercept=a, slope=b)
    raise ArithmeticError("logistic fit did not converge")


def _degenerate(points: Sequence[TaskPoint]) -> Horizon | None:
    """The horizon when no finite maximum-likelihood fit exists, else None."""
    n = len(points)
    times = [p.minutes for p in points]
    if n < 2:
        return Horizon(HorizonStatus.NOT_ESTIMABLE, n, 0, reason="fewer than two timed tasks")
    if min(times) == max(times):
        return Horizon(HorizonStatus.NOT_ESTIMABLE, n, 0, reason="every task has the same time")
    solved = [p.minutes for p in points if p.solved > 0]
    failed = [p.minutes for p in points if p.solved < 1]
    if not failed:
        return Horizon(
            HorizonStatus.ABOVE, n, 0, bound=(max(times), math.inf), reason="every task solved"
        )
    if not solved:
        return Horizon(HorizonStatus.BELOW, n, 0, bound=(0.0, min(times)), reason="no task solved")
    if max(solved) <= min(failed):
        return Horizon(
            HorizonStatus.SEPARATED,
            n,
            0,
            bound=(max(solved), min(failed)),
            reason="every solved task is shorter than every unsolved one",
        )
    if min(solved) >= max(failed):
        return Horizon(
            HorizonStatus.NOT_ESTIMABLE, n, 0, reason="every solved task is longer than every other"
        )
    return None


def _resample_value(points: Sequence[TaskPoint]) -> float | None:
    """One bootstrap replicate's horizon; degenerate samples take their limit."""
    degenerate = _degenerate(points)
    if degenerate is None:
        try:
            fit = fit_logistic([math.log2(p.minutes) for p in points], [p.solved for p in points])
        except ArithmeticError:
            return None
        return fit.horizon_minutes if fit.slope < 0 else None
    if degenerate.status is HorizonStatus.ABOVE:
        return math.inf
    if degenerate.status is HorizonStatus.BELOW:
        return 0.0
    if degenerate.status is HorizonStatus.SEPARATED and degenerate.bound is not None:
        return math.sqrt(degenerate.bound[0] * degenerate.bound[1])
    return None


def _interval(points: Sequence[TaskPoint], samples: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    values = []
    for _ in range(samples):
        value = _resample_value(rng.choices(points, k=len(points)))
        if value is not None:
            values.append(value)
    values.sort()
    low = values[math.floor(0.025 * len(values))]
    high = values[max(math.ceil(0.975 * len(values)) - 1, 0)]
    return low, high


def fit_horizon(
    points: Iterable[TaskPoint],
    *,
    untimed: int = 0,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Horizon:
    """The 50% horizon of one agent's timed tasks with its bootstrap 95% interval.

    The interval takes the 2.5th and 97.5th nearest-rank percentiles of the
    horizon over ``samples`` resamples of the tasks. A resample with every task
    solved counts as an infinite horizon, none solved as 0, and a separated one
    as the geometric middle of its gap; resamples that admit no value at all
    (one time for every task) are left out.
    """
    chosen = tuple(sorted(points, key=lambda p: (p.minutes, p.task)))
    degenerate = _degenerate(chosen)
    if degenerate is not None:
        return attrs.evolve(degenerate, untimed=untimed, points=chosen)
    fit = fit_logistic([math.log2(p.minutes) for p in chosen], [p.solved for p in chosen])
    if fit.slope >= 0:
        return Horizon(
            HorizonStatus.NOT_ESTIMABLE,
            len(chosen),
            untimed,
            fit=fit,
            reason="success does not fall with task time",
            points=chosen,
        )
    low, high = _interval(chosen, samples, seed)
    return Horizon(
        HorizonStatus.ESTIMATED,
        len(chosen),
        untimed,
        minutes=fit.horizon_minutes,
        low=low,
        high=high if math.isfinite(high) else None,
        fit=fit,
        points=chosen,
    )


def expert_minutes(task_path: str | Path | None) -> float | None:
    """``[metadata].expert_time_estimate_min`` of the task at ``task_path``, if readable."""
    if task_path is None:
        return None
    try:
        data = tomllib.loads((Path(task_path) / "task.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    metadata = data.get("metadata")
    value = metadata.get(EXPERT_TIME_KEY) if isinstance(metadata, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return float(value)


def task_points(
    solved_share: Mapping[str, float], minutes: Mapping[str, float]
) -> tuple[list[TaskPoint], int]:
    """The timed tasks as points, and how many tasks had no time."""
    points = [
        TaskPoint(task, minutes[task], share)
        for task, share in solved_share.items()
        if task in minutes
    ]
    return points, len(solved_share) - len(points)


def task_minutes(
    episodes: Iterable[Episode], measured: Mapping[str, float] | None = None
) -> tuple[dict[str, float], frozenset[str]]:
    """Each task's time: ``measured`` minutes where given, else the task's expert estimate.

    Returns the times and the names of the tasks whose time was measured.
    Tasks with neither (or with a time that is not positive) are absent.
    """
    measured = measured or {}
    times: dict[str, float] = {}
    for episode in episodes:
        task = episode.config.task_name
        if task in times:
            continue
        value = measured.get(task)
        if value is None or value <= 0:
            value = expert_minutes(episode.config.task_path)
        if value is not None:
            times[task] = value
    return times, frozenset(t for t in times if measured.get(t, 0) > 0)
