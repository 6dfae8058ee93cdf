"""Stamina metrics: how an episode's reward grew over its budget.

Every graded state of an episode has a time on the agent's budget clock: each
hidden checkpoint (:class:`~lhtb.episode.Checkpoint`) and each verifier pass
(:attr:`VerifierPass.elapsed_sec <lhtb.episode.VerifierPass.elapsed_sec>`).
Together they make the **reward curve**, a step function that starts at 0 at
``t = 0`` and holds each graded reward until the next one. From it:

* :func:`reward_at`: the reward of the state the agent had at a budget time,
  "what it would have scored with a budget of X";
* :func:`time_to_threshold_sec`: when the curve first reached R >= 0.95;
* :func:`normalised_auc`: the area under the curve over the budget, divided by
  the budget (1.0 is a perfect state from the first second; an agent at 0.6
  after ten minutes of ninety scores far above one reaching 0.6 at the end).

An episode's official reward is still its final verification's; the curve
serves analysis. Gradings that produced no reward (errors) leave no point.
Episodes without a timed curve (multi-step tasks, whose budget restarts every
step, and records written before lhtb timed its passes) are left out of the
means by :func:`mean_reward_with_budget` and the leaderboard.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from statistics import fmean

from lhtb.episode._record import Episode
from lhtb.errors import LhtbError

__all__ = [
    "BUDGET_FRACTIONS",
    "SOLVED_REWARD",
    "fraction_rewards",
    "has_curve",
    "mean_normalised_auc",
    "mean_reward_with_budget",
    "normalised_auc",
    "reward_at",
    "reward_curve",
    "time_to_threshold_sec",
]

SOLVED_REWARD = 0.95
"""The leaderboard's solved threshold (LHTB), the default of :func:`time_to_threshold_sec`."""
BUDGET_FRACTIONS = (0.25, 0.5, 0.75, 1.0)
"""The budget shares at which the leaderboard reports the mean reward."""


def has_curve(episode: Episode) -> bool:
    """Whether the episode's graded states all have a time on one budget clock."""
    return (
        episode.config.budget_sec is not None
        and not episode.steps
        and all(p.elapsed_sec is not None for p in episode.passes)
    )


def reward_curve(episode: Episode) -> list[tuple[float, float]]:
    """``(elapsed_sec, reward)`` points of the step function, in time order, from ``(0, 0)``.

    One point per checkpoint and per verifier pass that produced a reward; a
    pass and a checkpoint at the same time keep their recorded order (checkpoints
    first). Passes without a recorded time are left out (see :func:`has_curve`).
    """
    timed = [(c.elapsed_sec, c.reward) for c in episode.checkpoints if c.reward is not None]
    timed += [
        (p.elapsed_sec, p.reward)
        for p in episode.passes
        if p.elapsed_sec is not None and p.reward is not None
    ]
    timed.sort(key=lambda point: point[0])  # stable: checkpoints before a pass at the same time
    return [(0.0, 0.0), *((max(0.0, t), r) for t, r in timed)]


def reward_at(episode: Episode, elapsed_sec: float) -> float:
    """The reward of the last state graded at or before ``elapsed_sec`` on the budget clock.

    Raises:
        LhtbError: ``elapsed_sec`` is negative.
    """
    if elapsed_sec < 0:
        raise LhtbError(
            f"a budget time must be >= 0, got {elapsed_sec}", where="reward_at(elapsed_sec=)"
        )
    value = 0.0
    for time, reward in reward_curve(episode):
        if time > elapsed_sec:
            break
        value = reward
    return value


def time_to_threshold_sec(episode: Episode, threshold: float = SOLVED_REWARD) -> float | None:
    """The budget time of the first graded state with reward >= ``threshold`` (``None``: never)."""
    for time, reward in reward_curve(episode):
        if reward >= threshold:
            return time
    return None


def normalised_auc(episode: Episode) -> float:
    """The area under the reward curve over ``[0, budget]``, divided by the budget.

    Raises:
        LhtbError: the episode has no budget (a record without one).
    """
    budget = _budget(episode)
    area, (last_time, last_reward) = 0.0, (0.0, 0.0)
    for time, reward in reward_curve(episode):
        clipped = min(time, budget)
        area += (clipped - last_time) * last_reward
        last_time, last_reward = clipped, reward
    area += (budget - last_time) * last_reward
    return area / budget


def mean_reward_with_budget(episodes: Iterable[Episode], budget_sec: float) -> float | None:
    """The mean reward the episodes' agents had reached at ``budget_sec`` of their budget.

    As the leaderboard averages: each task's mean over its attempts, then the
    mean over tasks. An episode with a shorter budget counts its state at its
    own deadline. ``None`` when no episode has a timed curve (:func:`has_curve`).

    Raises:
        LhtbError: ``budget_sec`` is negative or beyond every episode's budget.
    """
    timed = [e for e in episodes if has_curve(e)]
    longest = max((_budget(e) for e in timed), default=0.0)
    if timed and not 0 <= budget_sec <= longest:
        raise LhtbError(
            f"a budget of {budget_sec:g}s is outside the runs' budget (0 to {longest:g}s)",
            where="budget",
            fix="ask for a budget up to the longest one the episodes ran with",
        )
    return _task_mean(timed, lambda e: reward_at(e, min(budget_sec, _budget(e))))


def fraction_rewards(
    episodes: Iterable[Episode], fractions: Iterable[float] = BUDGET_FRACTIONS
) -> dict[float, float]:
    """The mean reward at each of ``fractions`` (shares in [0, 1]) of each episode's own budget.

    Task-averaged as :func:`mean_reward_with_budget`; empty when no episode has
    a timed curve.
    """
    timed = [e for e in episodes if has_curve(e)]
    result = {}
    for fraction in fractions:

        def at_fraction(episode: Episode, share: float = fraction) -> float:
            return reward_at(episode, share * _budget(episode))

        mean = _task_mean(timed, at_fraction)
        if mean is not None:
            result[fraction] = mean
    return result


def mean_normalised_auc(episodes: Iterable[Episode]) -> float | None:
    """The task-averaged :func:`normalised_auc` of the episodes with a timed curve."""
    return _task_mean(episodes, normalised_auc)


def _task_mean(episodes: Iterable[Episode], value: Callable[[Episode], float]) -> float | None:
    """Each task's mean ``value`` over its timed episodes, then the mean over tasks."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for episode in episodes:
        if has_curve(episode):
            by_task[episode.config.task_name].append(value(episode))
    return fmean(fmean(values) for values in by_task.values()) if by_task else None


def _budget(episode: Episode) -> float:
    budget = episode.config.budget_sec
    if budget is None or budget <= 0:
        raise LhtbError(
            f"episode {episode.id} has no budget, so it has no reward curve",
            fix="metrics over time need an episode recorded with its budget",
        )
    return budget
