"""Analysis: what episode records say, alone and together.

Owns the leaderboard (LHTB's rules: errors count 0, non-comparable runs kept
apart, per category and tier), the reading of a run directory's final records,
stamina (how the reward grew over the budget), METR's 50% time horizon, human
baselines measured from played episodes, and re-grading a kept final state with
its seed or others (:func:`regrade`: how much of a score is luck).

- ``_leaderboard``, ``_leaderboard_render``: :class:`Leaderboard`; JSON, CSV, Markdown, rich.
- ``_stamina``: reward curves, reward at a budget, normalised area.
- ``_time_horizon``: the logistic fit of P(solved) on task time.
- ``_human_baseline``: :class:`HumanBaseline` (``lhtb baseline``).
- ``_audit``: :func:`regrade` (``lhtb verify``).

May import: :mod:`lhtb.episode`, :mod:`lhtb.verify`, :mod:`lhtb.agents`,
:mod:`lhtb.sandbox`, :mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`; not
the benchmark runner (which hands its episodes here).
"""

from lhtb.analysis._audit import Regrade, Spread, regrade
from lhtb.analysis._human_baseline import HumanBaseline, TaskBaseline, time_to_solve
from lhtb.analysis._leaderboard import GroupScore, Leaderboard, LeaderboardRow, pass_at_k
from lhtb.analysis._stamina import (
    fraction_rewards,
    has_curve,
    mean_normalised_auc,
    mean_reward_with_budget,
    normalised_auc,
    reward_at,
    reward_curve,
    time_to_threshold_sec,
)
from lhtb.analysis._time_horizon import (
    Horizon,
    HorizonStatus,
    TaskPoint,
    expert_minutes,
    fit_horizon,
    fit_logistic,
)

__all__ = [
    "GroupScore",
    "Horizon",
    "HorizonStatus",
    "HumanBaseline",
    "Leaderboard",
    "LeaderboardRow",
    "Regrade",
    "Spread",
    "TaskBaseline",
    "TaskPoint",
    "expert_minutes",
    "fit_horizon",
    "fit_logistic",
    "fraction_rewards",
    "has_curve",
    "mean_normalised_auc",
    "mean_reward_with_budget",
    "normalised_auc",
    "pass_at_k",
    "regrade",
    "reward_at",
    "reward_curve",
    "time_to_solve",
    "time_to_threshold_sec",
]
