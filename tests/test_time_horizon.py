"""The 50% time-horizon fit against hand-computed maximum-likelihood values."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from episode_fixtures import make
from lhtb import Leaderboard
from lhtb.analysis import HorizonStatus, TaskPoint, expert_minutes, fit_horizon, fit_logistic


def points(*groups: tuple[float, int, int]) -> list[TaskPoint]:
    """``(minutes, solved, unsolved)`` groups as one task point each."""
    out = []
    for minutes, solved, unsolved in groups:
        out += [TaskPoint(f"s{minutes}-{i}", minutes, 1.0) for i in range(solved)]
        out += [TaskPoint(f"u{minutes}-{i}", minutes, 0.0) for i in range(unsolved)]
    return out


def test_two_time_groups_fit_their_empirical_shares_in_closed_form() -> None:
    # With two distinct times the logistic MLE reproduces each group's share:
    # a + b*1 = logit(3/4) = ln 3 (2 min), a + b*4 = logit(1/3) = -ln 2 (16 min).
    # So b = -ln 6 / 3, a = ln 3 + ln 6 / 3, and P = 0.5 at log2 t = 1 + 3 ln 3 / ln 6.
    horizon = fit_horizon(points((2, 3, 1), (16, 1, 2)))
    b = -math.log(6) / 3
    a = math.log(3) - b
    assert horizon.status is HorizonStatus.ESTIMATED
    assert horizon.fit is not None
    assert horizon.fit.slope == pytest.approx(b, rel=1e-7)
    assert horizon.fit.intercept == pytest.approx(a, rel=1e-7)
    assert horizon.minutes == pytest.approx(2 ** (1 + 3 * math.log(3) / math.log(6)), rel=1e-7)
    assert horizon.minutes == pytest.approx(7.157, abs=1e-3)
    assert horizon.fit.probability(2) == pytest.approx(0.75)
    assert horizon.fit.probability(16) == pytest.approx(1 / 3)
    assert horizon.tasks == 7


def test_fit_on_spread_times_solves_the_score_equations() -> None:
    # No closed form here: check the MLE's defining property, a zero gradient
    # (sum of residuals and of residuals times x), computed independently.
    xs = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    ys = [1.0, 1.0, 0.0, 1.0, 0.5, 0.0]
    fit = fit_logistic(xs, ys)
    residuals = [
        y - 1 / (1 + math.exp(-(fit.intercept + fit.slope * x)))
        for x, y in zip(xs, ys, strict=True)
    ]
    assert sum(residuals) == pytest.approx(0.0, abs=1e-9)
    assert sum(r * x for r, x in zip(residuals, xs, strict=True)) == pytest.approx(0.0, abs=1e-9)
    assert fit.slope < 0


def test_bootstrap_interval_is_reproducible_and_brackets_the_estimate() -> None:
    data = points((1, 4, 0), (2, 3, 1), (8, 2, 2), (30, 1, 3), (120, 0, 4))
    first = fit_horizon(data)
    again = fit_horizon(list(reversed(data)))
    assert first.status is HorizonStatus.ESTIMATED
    assert (first.minutes, first.low, first.high) == (again.minutes, again.low, again.high)
    assert first.low is not None
    assert first.high is not None
    assert first.minutes is not None
    assert first.low < first.minutes < first.high
    # Twice the tasks (each duplicated) give the same estimate and a narrower interval.
    doubled = fit_horizon(data + [TaskPoint(p.task + "'", p.minutes, p.solved) for p in data])
    assert doubled.minutes == pytest.approx(first.minutes, rel=1e-7)
    assert doubled.low is not None
    assert doubled.high is not None
    assert doubled.high - doubled.low < first.high - first.low


@pytest.mark.parametrize(
    ("data", "status", "bound", "text"),
    [
        (points((2, 2, 0), (16, 1, 0)), HorizonStatus.ABOVE, (16, math.inf), "> 16"),
        (points((2, 0, 2), (16, 0, 1)), HorizonStatus.BELOW, (0, 2), "< 2"),
        (points((2, 2, 0), (4, 1, 0), (16, 0, 2)), HorizonStatus.SEPARATED, (4, 16), "4-16"),
        (points((2, 1, 0), (4, 1, 1), (16, 0, 1)), HorizonStatus.SEPARATED, (4, 4), "4 (sep"),
        (points((4, 1, 0)), HorizonStatus.NOT_ESTIMABLE, None, "not estimable"),
        (points((4, 2, 3)), HorizonStatus.NOT_ESTIMABLE, None, "not estimable"),
        (points((2, 0, 2), (16, 2, 0)), HorizonStatus.NOT_ESTIMABLE, None, "not estimable"),
        ([], HorizonStatus.NOT_ESTIMABLE, None, "not estimable"),
    ],
    ids=[
        "all-solved",
        "none-solved",
        "separable",
        "quasi-separable",
        "one-task",
        "one-time",
        "rising",
        "empty",
    ],
)
def test_degenerate_cases_say_what_is_known_instead_of_a_number(
    data: list[TaskPoint], status: HorizonStatus, bound: tuple[float, float] | None, text: str
) -> None:
    horizon = fit_horizon(data, untimed=2)
    assert horizon.status is status
    assert horizon.minutes is None
    assert horizon.bound == bound
    assert text in horizon.describe()
    assert horizon.untimed == 2
    assert horizon.reason
    assert horizon.to_dict()["status"] == str(status)


def test_success_rising_with_time_is_not_estimable() -> None:
    horizon = fit_horizon(points((2, 1, 3), (16, 3, 1)))
    assert horizon.status is HorizonStatus.NOT_ESTIMABLE
    assert horizon.fit is not None
    assert horizon.fit.slope > 0
    assert horizon.minutes is None


def write_task(root: Path, name: str, toml: str) -> Path:
    task = root / name
    task.mkdir(parents=True)
    (task / "task.toml").write_text(toml)
    return task


def test_expert_minutes_reads_the_metadata(tmp_path: Path) -> None:
    good = write_task(tmp_path, "a", "[metadata]\nexpert_time_estimate_min = 90\n")
    missing = write_task(tmp_path, "b", '[metadata]\ncategory = "x"\n')
    broken = write_task(tmp_path, "c", "[metadata\n")
    negative = write_task(tmp_path, "d", "[metadata]\nexpert_time_estimate_min = -3\n")
    assert expert_minutes(good) == 90.0
    assert expert_minutes(missing) is None
    assert expert_minutes(broken) is None
    assert expert_minutes(negative) is None
    assert expert_minutes(tmp_path / "absent") is None
    assert expert_minutes(None) is None


def test_leaderboard_horizon_prefers_measured_times_and_counts_untimed(tmp_path: Path) -> None:
    t1 = write_task(tmp_path, "t1", "[metadata]\nexpert_time_estimate_min = 2\n")
    t2 = write_task(tmp_path, "t2", "[metadata]\nexpert_time_estimate_min = 999\n")
    episodes = [
        make("t1", "A", 1.0, task_path=t1),
        make("t2", "A", 0.0, task_path=t2),
        make("t3", "A", 1.0),  # no task.toml and no baseline: left out, counted
    ]
    estimated = Leaderboard.from_episodes(episodes)
    assert estimated.task_minutes == {"t1": 2.0, "t2": 999.0}
    assert estimated.measured == frozenset()
    measured = Leaderboard.from_episodes(episodes, baseline={"t2": 16.0, "t9": 5.0})
    assert measured.task_minutes == {"t1": 2.0, "t2": 16.0}
    assert measured.measured == {"t2"}
    horizon = measured.rows[0].horizon
    assert horizon is not None
    assert horizon.status is HorizonStatus.SEPARATED  # t1 solved at 2, t2 failed at 16
    assert horizon.bound == (2.0, 16.0)
    assert (horizon.tasks, horizon.untimed) == (2, 1)
    row = measured.to_dict()["rows"][0]
    assert row["horizon"]["status"] == "separated"
    assert row["horizon"]["bound"] == [2.0, 16.0]
