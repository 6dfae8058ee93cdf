"""Aggregating episode records into a leaderboard (LHTB rules).

One row per agent and model:

* **mean reward** over tasks (each task's mean over its attempts); an episode
  without a reward (an error of any kind) counts 0;
* **solved** at R >= 0.95 and **strict** at R = 1.0, as the share of tasks
  (mean over attempts) and as an expected count;
* **pass@k** for k = 1..n when every task has n > 1 attempts (the unbiased
  estimator 1 - C(n-c, k) / C(n, k), averaged over tasks);
* mean cost (unknown if any episode's cost is unknown), tokens and wall time
  per episode; the public-vs-hidden subtask gap; a per-category and a per-tier
  (``[metadata].tier``: short or long, by measurement) breakdown;
* the **50% time horizon** (:mod:`lhtb.analysis._time_horizon`) over the tasks with a
  time: measured by people (a :class:`~lhtb.analysis.HumanBaseline`) or
  the task's ``expert_time_estimate_min``;
* stamina (:mod:`lhtb.analysis._stamina`, from the reward curves): the mean reward at
  25/50/75/100% of the budget and the mean normalised area under the curve;
  :meth:`Leaderboard.reward_with_budget` gives each row's mean reward at any
  budget up to the runs'.

Episodes run with diagnostic feedback or a changed budget are not comparable:
they form separate rows in :attr:`Leaderboard.apart`, never mixed into the
ranking. The fixed 0.95 threshold is the leaderboard's, not a task's own
``pass_threshold``, so that rows compare across tasks.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING, Any

import attrs

from lhtb._util.display import Displayable, View, number
from lhtb.analysis import _leaderboard_render as render
from lhtb.analysis._stamina import (
    fraction_rewards,
    has_curve,
    mean_normalised_auc,
    mean_reward_with_budget,
)
from lhtb.analysis._time_horizon import Horizon, fit_horizon, task_minutes, task_points
from lhtb.episode._record import ERROR_OUTCOMES, Episode, FeedbackMode, Outcome
from lhtb.errors import EpisodeFormatError, LhtbError

if TYPE_CHECKING:
    from rich.table import Table

__all__ = [
    "SOLVED_THRESHOLD",
    "STRICT_THRESHOLD",
    "GroupScore",
    "Leaderboard",
    "LeaderboardRow",
    "pass_at_k",
]

SOLVED_THRESHOLD = 0.95
STRICT_THRESHOLD = 1.0
UNCATEGORISED = "uncategorised"
UNTIERED = "untiered"


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task: ``n`` attempts, ``c`` of them solved."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _reward(episode: Episode) -> float:
    return episode.reward if episode.reward is not None else 0.0


def not_comparable_reasons(episode: Episode) -> tuple[str, ...]:
    """Why an episode cannot join the main ranking (empty when it can)."""
    config = episode.config
    reasons = []
    if config.feedback is not FeedbackMode.BINARY:
        reasons.append(f"{config.feedback} feedback")
    if config.budget_sec != config.task_budget_sec:
        reasons.append("budget changed")
    return tuple(reasons)


@attrs.frozen
class GroupScore:
    """One group of a row's tasks: a category, or a tier."""

    name: str
    tasks: int
    mean_reward: float
    solved_rate: float


@attrs.frozen
class LeaderboardRow:
    """The figures of one agent and model (and, apart, one non-comparable setting)."""

    agent: str
    model: str | None
    tasks: int
    episodes: int
    errors: int
    incomplete: int
    mean_reward: float
    solved_rate: float
    strict_rate: float
    pass_at_k: Mapping[int, float]
    mean_cost_usd: float | None
    mean_tokens: float
    mean_time_sec: float
    public_reward: float | None
    hidden_reward: float | None
    categories: tuple[GroupScore, ...]
    not_comparable: tuple[str, ...] = ()
    horizon: Horizon | None = None
    reward_at_percent: Mapping[int, float] = attrs.field(factory=dict)
    """Mean reward at 25, 50, 75 and 100 percent of the budget, from the reward curves
    (empty when no episode has one; see :mod:`lhtb.analysis._stamina`)."""
    mean_auc: float | None = None
    """Mean normalised area under the reward curve (``None``: no episode has a curve)."""
    tiers: tuple[GroupScore, ...] = ()
    """The row by task tier (empty when no task declares one; ``untiered`` for the rest)."""

    @property
    def comparable(self) -> bool:
        """Fit for the main ranking."""
        return not self.not_comparable

    @property
    def solved(self) -> float:
        """Expected number of tasks solved (an integer with one attempt per task)."""
        return self.solved_rate * self.tasks

    @property
    def strict(self) -> float:
        """Expected number of tasks with R = 1.0."""
        return self.strict_rate * self.tasks

    @property
    def public_hidden_gap(self) -> float | None:
        """Mean public-subtask reward minus mean hidden-subtask reward (overfitting)."""
        if self.public_reward is None or self.hidden_reward is None:
            return None
        return self.public_reward - self.hidden_reward

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, derived figures included."""
        data = attrs.asdict(self, recurse=True)
        data["pass_at_k"] = {str(k): v for k, v in self.pass_at_k.items()}
        data["reward_at_percent"] = {str(k): v for k, v in self.reward_at_percent.items()}
        data["not_comparable"] = list(self.not_comparable)
        data["horizon"] = None if self.horizon is None else self.horizon.to_dict()
        data.update(
            comparable=self.comparable,
            solved=self.solved,
            strict=self.strict,
            public_hidden_gap=self.public_hidden_gap,
        )
        return data


def _row(
    agent: str,
    model: str | None,
    episodes: Sequence[Episode],
    reasons: tuple[str, ...],
    minutes: Mapping[str, float],
) -> LeaderboardRow:
    by_task: dict[str, list[Episode]] = defaultdict(list)
    for episode in episodes:
        by_task[episode.config.task_name].append(episode)
    task_means = {t: fmean(_reward(e) for e in eps) for t, eps in by_task.items()}
    solved = {t: sum(_reward(e) >= SOLVED_THRESHOLD for e in eps) for t, eps in by_task.items()}
    strict = {t: sum(_reward(e) >= STRICT_THRESHOLD for e in eps) for t, eps in by_task.items()}
    n_min = min(len(eps) for eps in by_task.values())
    passk = (
        {
            k: fmean(pass_at_k(len(eps), solved[t], k) for t, eps in by_task.items())
            for k in range(1, n_min + 1)
        }
        if n_min > 1
        else {}
    )
    costs = [e.usage.cost_usd for e in episodes]
    cards = [e.scorecard for e in episodes if e.scorecard is not None]
    paired = [c for c in cards if c.public_reward is not None and c.hidden_reward is not None]
    points, untimed = task_points({t: solved[t] / len(eps) for t, eps in by_task.items()}, minutes)

    def groups(name_of: Callable[[Episode], str | None], missing: str) -> tuple[GroupScore, ...]:
        members: dict[str, list[str]] = defaultdict(list)
        for task, eps in by_task.items():
            members[name_of(eps[0]) or missing].append(task)
        return tuple(
            GroupScore(
                name=name,
                tasks=len(tasks),
                mean_reward=fmean(task_means[t] for t in tasks),
                solved_rate=fmean(solved[t] / len(by_task[t]) for t in tasks),
            )
            for name, tasks in sorted(members.items())
        )

    tiered = any(e.config.tier is not None for e in episodes)
    return LeaderboardRow(
        agent=agent,
        model=model,
        tasks=len(by_task),
        episodes=len(episodes),
        errors=sum(
            e.outcome in ERROR_OUTCOMES or (e.finished and e.reward is None) for e in episodes
        ),
        incomplete=sum(not e.finished or e.outcome is Outcome.CANCELLED for e in episodes),
        mean_reward=fmean(task_means.values()),
        solved_rate=fmean(solved[t] / len(eps) for t, eps in by_task.items()),
        strict_rate=fmean(strict[t] / len(eps) for t, eps in by_task.items()),
        pass_at_k=passk,
        mean_cost_usd=None if any(c is None for c in costs) else fmean(c or 0.0 for c in costs),
        mean_tokens=fmean(e.usage.total_tokens for e in episodes),
        mean_time_sec=fmean(e.timings.total_sec for e in episodes),
        public_reward=fmean(c.public_reward or 0.0 for c in paired) if paired else None,
        hidden_reward=fmean(c.hidden_reward or 0.0 for c in paired) if paired else None,
        categories=groups(lambda e: e.config.category, UNCATEGORISED),
        tiers=groups(lambda e: e.config.tier, UNTIERED) if tiered else (),
        not_comparable=reasons,
        horizon=fit_horizon(points, untimed=untimed),
        reward_at_percent={round(f * 100): r for f, r in fraction_rewards(episodes).items()},
        mean_auc=mean_normalised_auc(episodes),
    )


def _longest_budget(episodes: Iterable[Episode]) -> float:
    return max((e.config.budget_sec or 0.0 for e in episodes), default=0.0)


def _row_key(episode: Episode) -> tuple[str, str | None, tuple[str, ...]]:
    """The row an episode belongs to: agent, model, and why it is not comparable."""
    return episode.config.agent, episode.config.model, not_comparable_reasons(episode)


def _rank(rows: Iterable[LeaderboardRow]) -> tuple[LeaderboardRow, ...]:
    return tuple(sorted(rows, key=lambda r: (-r.mean_reward, -r.solved_rate, r.agent)))


_RETRY = re.compile(r"__retry(\d+)$")


def retry_index(directory: Path) -> int:
    """The try number encoded in a slot directory's name (0 for the first try).

    The benchmark names a slot's later tries ``<slot>__retry<N>``
    (:meth:`lhtb.bench._slots.Slot.directory`); the leaderboard reads them back.
    """
    match = _RETRY.search(directory.name)
    return int(match.group(1)) if match else 0


def final_records(run_dir: Path) -> list[tuple[Path, Episode]]:
    """Each slot's latest try under ``run_dir`` with its directory, oldest first.

    Earlier tries (retried infrastructure errors, interrupted runs) stay on
    disk but do not count.
    """
    latest: dict[tuple[Any, ...], tuple[int, datetime, Path, Episode]] = {}
    for path in sorted(run_dir.rglob("episode.json")):
        try:
            episode = Episode.load(path)
        except EpisodeFormatError:
            continue
        config = episode.config
        key = (
            path.parent.parent,
            config.task_name,
            config.agent,
            config.model,
            config.feedback,
            config.budget_sec,
            episode.attempt,
        )
        entry = (retry_index(path.parent), episode.started_at, path.parent, episode)
        if key not in latest or entry[:2] > latest[key][:2]:
            latest[key] = entry
    chosen = sorted(latest.values(), key=lambda e: (e[3].started_at, str(e[2])))
    return [(directory, episode) for _, _, directory, episode in chosen]


@attrs.frozen(repr=False)
class Leaderboard(Displayable):
    """Ranked rows of comparable episodes, plus the non-comparable rows kept apart."""

    rows: tuple[LeaderboardRow, ...]
    apart: tuple[LeaderboardRow, ...]
    tasks: tuple[str, ...]
    episodes: tuple[Episode, ...] = attrs.field(repr=False, eq=False)
    task_minutes: Mapping[str, float] = attrs.field(factory=dict, eq=False)
    """Each timed task's minutes (measured or estimated) used by the time horizons."""
    measured: frozenset[str] = frozenset()
    """The tasks whose time is a measured human baseline."""

    @classmethod
    def from_episodes(
        cls, episodes: Iterable[Episode], *, baseline: Mapping[str, float] | None = None
    ) -> Leaderboard:
        """Aggregate final episode records (one per task, agent and attempt).

        ``baseline`` maps task names to measured human minutes
        (:attr:`HumanBaseline.minutes <lhtb.analysis.HumanBaseline.minutes>`);
        other tasks use their ``expert_time_estimate_min`` for the time horizon.
        """
        records = tuple(episodes)
        minutes, measured = task_minutes(records, baseline)
        groups: dict[tuple[str, str | None, tuple[str, ...]], list[Episode]] = defaultdict(list)
        for episode in records:
            groups[_row_key(episode)].append(episode)
        rows = [
            _row(agent, model, eps, reasons, minutes)
            for (agent, model, reasons), eps in groups.items()
        ]
        return cls(
            rows=_rank(r for r in rows if r.comparable),
            apart=_rank(r for r in rows if not r.comparable),
            tasks=tuple(sorted({e.config.task_name for e in records})),
            episodes=records,
            task_minutes=minutes,
            measured=measured,
        )

    @classmethod
    def from_dirs(
        cls, *run_dirs: str | Path, baseline: Mapping[str, float] | None = None
    ) -> Leaderboard:
        """Read every ``episode.json`` under the run directories (latest try per slot).

        ``baseline``: measured task minutes, as for :meth:`from_episodes`.

        Raises:
            LhtbError: a directory does not exist or holds no episode record.
        """
        records: list[Episode] = []
        for run_dir in map(Path, run_dirs):
            if not run_dir.is_dir():
                raise LhtbError("not a directory", where=str(run_dir), fix="give a run directory")
            found = [episode for _, episode in final_records(run_dir)]
            if not found:
                raise LhtbError(
                    "no episode records (episode.json) found",
                    where=str(run_dir),
                    fix="give the output directory of `lhtb run` or run_benchmark",
                )
            records.extend(found)
        return cls.from_episodes(records, baseline=baseline)

    def reward_with_budget(
        self, budget_sec: float
    ) -> tuple[tuple[LeaderboardRow, float | None], ...]:
        """What each row's agent scored with a budget of ``budget_sec``, from the curves.

        Every row (ranked first, then the rows apart) with its mean reward at that
        budget (:func:`lhtb.analysis.mean_reward_with_budget`; an episode whose own
        budget was shorter counts its final state), or ``None`` for a row whose
        episodes have no timed curve. The final reward stays the official one.

        Raises:
            LhtbError: ``budget_sec`` is negative or beyond the runs' longest budget.
        """
        longest = _longest_budget(self.episodes)
        if not 0 <= budget_sec <= longest:
            raise LhtbError(
                f"a budget of {budget_sec:g}s is outside the runs' budget (0 to {longest:g}s)",
                where="budget",
                fix="ask for a budget up to the longest one the episodes ran with",
            )
        groups: dict[tuple[str, str | None, tuple[str, ...]], list[Episode]] = defaultdict(list)
        for episode in self.episodes:
            groups[_row_key(episode)].append(episode)
        scores = []
        for row in self.rows + self.apart:
            episodes = groups[(row.agent, row.model, row.not_comparable)]
            budget = min(budget_sec, _longest_budget(e for e in episodes if has_curve(e)))
            scores.append((row, mean_reward_with_budget(episodes, budget)))
        return tuple(scores)

    def time_note(self) -> str:
        """Where the time horizons' task times came from, and how many tasks had none."""
        timed, measured = len(self.task_minutes), len(self.measured)
        return (
            f"50% time horizon task times: {measured} measured by people, "
            f"{timed - measured} expert estimates, {len(self.tasks) - timed} tasks without "
            "a time left out"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: thresholds, tasks, rows and the rows kept apart."""
        return {
            "solved_threshold": SOLVED_THRESHOLD,
            "strict_threshold": STRICT_THRESHOLD,
            "tasks": list(self.tasks),
            "task_minutes": dict(self.task_minutes),
            "measured_tasks": sorted(self.measured),
            "rows": [row.to_dict() for row in self.rows],
            "not_comparable": [row.to_dict() for row in self.apart],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The leaderboard as JSON."""
        return render.to_json(self.to_dict(), indent=indent)

    def to_csv(self) -> str:
        """One CSV line per row (comparable first), pass@k as ``pass@k`` columns."""
        return render.to_csv(self.rows + self.apart)

    def to_markdown(self) -> str:
        """Markdown tables: the ranking, the rows kept apart, the categories."""
        return render.to_markdown(self.rows, self.apart, len(self.tasks)) + (
            f"\n{self.time_note()}.\n"
        )

    def rich_table(self) -> Table:
        """A rich table for the terminal."""
        return render.rich_table(self.rows, self.apart, len(self.tasks))

    def _view(self) -> View:
        """The ranking (rows marked * are not comparable)."""
        ranked = [(str(rank), row) for rank, row in enumerate(self.rows, start=1)]
        rows = tuple(
            (
                mark,
                row.agent,
                row.model or "-",
                number(row.mean_reward),
                f"{row.solved_rate:.0%}",
                str(row.episodes),
                str(row.errors),
            )
            for mark, row in [*ranked, *(("*", row) for row in self.apart)]
        )
        return View(
            f"Leaderboard ({len(self.tasks)} tasks; errors count 0)",
            headers=("#", "agent", "model", "mean reward", "solved", "episodes", "errors"),
            rows=rows,
            note="* not comparable (diagnostic feedback or a changed budget)" if self.apart else "",
        )

    def __repr__(self) -> str:
        ranking = ", ".join(f"{r.agent}={r.mean_reward:.3f}" for r in self.rows)
        return f"Leaderboard(tasks={len(self.tasks)}, ranking=[{ranking}])"
