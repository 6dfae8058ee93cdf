"""Stamina metrics: reward curves over the budget clock, and their leaderboard figures."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from episode_fixtures import START, make
from lhtb.analysis import (
    Leaderboard,
    has_curve,
    mean_reward_with_budget,
    normalised_auc,
    reward_at,
    reward_curve,
    time_to_threshold_sec,
)
from lhtb.cli import main
from lhtb.episode import Checkpoint, Episode, PassOutcome, StepRecord, VerifierPass
from lhtb.errors import LhtbError

BUDGET = 1000.0


def checkpoint(number: int, elapsed: float, reward: float | None) -> Checkpoint:
    return Checkpoint(
        number=number,
        started_at=START + timedelta(seconds=elapsed),
        elapsed_sec=elapsed,
        reward=reward,
        scorecard=None,
        capture_sec=0.01,
        grading_sec=5.0,
        error=None if reward is not None else "no reward",
    )


def curved(
    task: str,
    agent: str,
    points: list[tuple[float, float | None]],
    *,
    final: tuple[float, float],
    attempt: int = 1,
    budget: float = BUDGET,
) -> Episode:
    """An episode with checkpoints at ``points`` and a final pass at ``final``."""
    base = make(task, agent, final[1], attempt=attempt, budget=budget)
    final_pass = attrs.evolve(base.passes[0], elapsed_sec=final[0])
    return attrs.evolve(
        base,
        config=attrs.evolve(base.config, task_budget_sec=budget),
        passes=(final_pass,),
        checkpoints=tuple(checkpoint(n, t, r) for n, (t, r) in enumerate(points, 1)),
    )


def test_the_curve_is_a_step_function_from_zero_through_every_graded_state() -> None:
    episode = curved("t1", "A", [(250, 0.2), (500, None), (750, 0.6)], final=(1000, 0.7))
    interim = VerifierPass(
        number=1,
        started_at=START,
        duration_sec=3.0,
        outcome=PassOutcome.FAILED,
        reward=0.4,
        elapsed_sec=400.0,
    )
    episode = attrs.evolve(episode, passes=(interim, *episode.passes))
    assert reward_curve(episode) == [(0.0, 0.0), (250, 0.2), (400, 0.4), (750, 0.6), (1000, 0.7)]
    assert [reward_at(episode, t) for t in (0, 249.9, 250, 500, 999, 1000)] == [
        0.0,
        0.0,
        0.2,
        0.4,
        0.6,
        0.7,
    ]
    with pytest.raises(LhtbError, match="must be >= 0"):
        reward_at(episode, -1)


def test_time_to_threshold_is_the_first_state_reaching_it() -> None:
    episode = curved("t1", "A", [(100, 0.5), (300, 0.96), (600, 0.9)], final=(900, 1.0))
    assert time_to_threshold_sec(episode) == 300
    assert time_to_threshold_sec(episode, threshold=1.0) == 900
    assert time_to_threshold_sec(curved("t1", "A", [(100, 0.5)], final=(900, 0.6))) is None


def test_the_area_tells_an_early_plateau_from_a_late_climb() -> None:
    early = curved("t1", "A", [(100, 0.6)], final=(1000, 0.6))
    late = curved("t1", "B", [(500, 0.3)], final=(1000, 0.6))
    assert early.reward == late.reward == 0.6
    assert normalised_auc(early) == pytest.approx(0.6 * 900 / 1000)
    assert normalised_auc(late) == pytest.approx(0.3 * 500 / 1000)
    solved_early = curved("t1", "C", [], final=(200, 1.0))  # solved, the episode ended at 200 s
    assert normalised_auc(solved_early) == pytest.approx(0.8)


def test_episodes_without_a_timed_curve_are_left_out() -> None:
    untimed = make("t1", "A", 0.8)  # a record from before passes had a budget time
    assert not has_curve(untimed)
    assert reward_curve(untimed) == [(0.0, 0.0)]
    steps = attrs.evolve(curved("t1", "A", [], final=(10, 1.0)), steps=(StepRecord("a"),))
    assert not has_curve(steps)
    assert mean_reward_with_budget([untimed, steps], 10) is None


def test_leaderboard_rows_carry_rewards_at_budget_shares_and_the_area() -> None:
    episodes = [
        # task t1, two attempts: means per task first, then over tasks
        curved("t1", "A", [(250, 0.2), (500, 0.4), (750, 0.6)], final=(1000, 0.8)),
        curved("t1", "A", [(250, 0.0), (500, 0.0), (750, 1.0)], final=(800, 1.0), attempt=2),
        curved("t2", "A", [(100, 0.5)], final=(1000, 0.5)),
        curved("t1", "B", [(900, 0.9)], final=(1000, 0.9)),
    ]
    board = Leaderboard.from_episodes(episodes)
    row_a = next(r for r in board.rows if r.agent == "A")
    t1 = {25: (0.2 + 0.0) / 2, 50: (0.4 + 0.0) / 2, 75: (0.6 + 1.0) / 2, 100: (0.8 + 1.0) / 2}
    for percent, t1_mean in t1.items():
        assert row_a.reward_at_percent[percent] == pytest.approx((t1_mean + 0.5) / 2)
    assert row_a.reward_at_percent[100] == pytest.approx(row_a.mean_reward)
    auc_t1 = (normalised_auc(episodes[0]) + normalised_auc(episodes[1])) / 2
    assert row_a.mean_auc == pytest.approx((auc_t1 + normalised_auc(episodes[2])) / 2)
    assert row_a.to_dict()["reward_at_percent"]["75"] == row_a.reward_at_percent[75]
    assert "R @25/50/75/100% budget" in board.to_markdown()
    assert "reward_at_75" in board.to_csv().splitlines()[0]

    scores = {row.agent: score for row, score in board.reward_with_budget(600)}
    assert scores == {"A": pytest.approx(((0.4 + 0.0) / 2 + 0.5) / 2), "B": 0.0}
    with pytest.raises(LhtbError, match="outside the runs' budget"):
        board.reward_with_budget(1000.5)


def test_leaderboard_command_answers_with_a_budget(tmp_path: Path) -> None:
    for index, episode in enumerate(
        [
            curved("t1", "A", [(250, 0.25)], final=(1000, 0.75)),
            curved("t1", "B", [(900, 0.5)], final=(1000, 0.5)),
        ]
    ):
        directory = tmp_path / "run" / f"ep-{index}"
        directory.mkdir(parents=True)
        episode.save(directory / "episode.json")
    runner = CliRunner()
    result = runner.invoke(main, ["leaderboard", str(tmp_path / "run"), "--with-budget", "500"])
    assert result.exit_code == 0, result.output
    assert "| A | m1 | 0.250 |" in result.output
    assert "| B | m1 | 0.000 |" in result.output
    result = runner.invoke(
        main, ["leaderboard", str(tmp_path / "run"), "--with-budget", "500", "--format", "json"]
    )
    assert '"mean_reward": 0.25' in result.output
    result = runner.invoke(main, ["leaderboard", str(tmp_path / "run"), "--with-budget", "2000"])
    assert result.exit_code != 0
    assert "outside the runs' budget (0 to 1000s)" in result.output
