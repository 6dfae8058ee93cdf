"""Leaderboard figures against hand-computed values on a fixture of episode records."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path

import pytest

from episode_fixtures import START, fixture, make
from lhtb import Leaderboard
from lhtb.analysis import pass_at_k
from lhtb.episode import Outcome
from lhtb.task import Tier


def test_pass_at_k_matches_the_unbiased_estimator() -> None:
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)
    assert pass_at_k(5, 0, 3) == 0.0
    assert pass_at_k(2, 1, 2) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="need"):
        pass_at_k(2, 3, 1)


def test_rows_match_hand_computed_figures() -> None:
    board = Leaderboard.from_episodes(fixture())
    assert [(r.agent, r.model) for r in board.rows] == [("A", "m1"), ("B", None)]
    a, b = board.rows
    assert board.tasks == ("t1", "t2", "t3")

    # per-task means: t1 (1 + 0.96)/2 = 0.98, t2 (0.5 + 0)/2 = 0.25, t3 (0.95 + 0.2)/2 = 0.575
    assert a.mean_reward == pytest.approx((0.98 + 0.25 + 0.575) / 3)
    assert a.solved_rate == pytest.approx((2 / 2 + 0 / 2 + 1 / 2) / 3)
    assert a.solved == pytest.approx(1.5)
    assert a.strict_rate == pytest.approx((1 / 2) / 3)
    assert dict(a.pass_at_k) == pytest.approx({1: 0.5, 2: (1 + 0 + 1) / 3})
    assert (a.tasks, a.episodes, a.errors, a.incomplete) == (3, 6, 1, 0)
    assert a.mean_cost_usd == pytest.approx((0.1 + 0.3 + 0.2 + 0.4 + 0.2 + 0.0) / 6)
    assert a.mean_tokens == pytest.approx(12000 / 6)
    assert a.mean_time_sec == pytest.approx(360 / 6)
    # public/hidden pairs: t1#1 (1.0, 1.0) and t3#1 (1.0, 14/15)
    assert a.public_reward == pytest.approx(1.0)
    assert a.hidden_reward == pytest.approx((1 + 14 / 15) / 2)
    assert a.public_hidden_gap == pytest.approx(1 - (1 + 14 / 15) / 2)
    categories = {c.name: c for c in a.categories}
    assert categories["systems"].tasks == 2
    assert categories["systems"].mean_reward == pytest.approx((0.98 + 0.25) / 2)
    assert categories["systems"].solved_rate == pytest.approx(0.5)
    assert categories["science"].mean_reward == pytest.approx(0.575)

    assert b.mean_reward == pytest.approx((0.3 + 1.0 + 0.0) / 3)  # the infra error counts 0
    assert b.solved_rate == pytest.approx(1 / 3)
    assert b.strict_rate == pytest.approx(1 / 3)
    assert b.pass_at_k == {}
    assert b.errors == 1
    assert b.mean_cost_usd is None  # one unknown cost keeps the mean unknown
    assert b.public_hidden_gap is None


def test_not_comparable_episodes_are_listed_apart() -> None:
    board = Leaderboard.from_episodes(fixture())
    apart = {r.not_comparable: r for r in board.apart}
    assert set(apart) == {("diagnostic feedback",), ("budget changed",)}
    assert apart[("diagnostic feedback",)].mean_reward == 1.0
    assert apart[("budget changed",)].mean_reward == pytest.approx(0.7)
    assert all(r.comparable for r in board.rows)
    # the ranking's figures exclude them
    assert board.rows[0].episodes == 6


def test_rows_split_by_tier_when_tasks_declare_one() -> None:
    long, short = Tier.LONG, Tier.SHORT
    episodes = [
        make("t1", "A", 1.0, tier=short),
        make("t2", "A", 0.2, tier=long),
        make("t3", "A", 0.4, tier=long),
        make("t4", "A", 0.5),  # no tier declared
    ]
    [row] = Leaderboard.from_episodes(episodes).rows
    tiers = {t.name: t for t in row.tiers}
    assert sorted(tiers) == ["long", "short", "untiered"]
    assert (tiers["long"].tasks, tiers["long"].mean_reward) == (2, pytest.approx(0.3))
    assert (tiers["short"].tasks, tiers["short"].solved_rate) == (1, 1.0)
    assert tiers["untiered"].tasks == 1
    markdown = Leaderboard.from_episodes(episodes).to_markdown()
    assert "| long tier | short tier | untiered tier |" in markdown
    assert "| 0.300 (0/2 solved) | 1.000 (1/1 solved) | 0.500 (0/1 solved) |" in markdown
    data = json.loads(Leaderboard.from_episodes(episodes).to_json())
    assert data["rows"][0]["tiers"][0] == {
        "name": "long", "tasks": 2, "mean_reward": pytest.approx(0.3), "solved_rate": 0.0,
    }  # fmt: skip
    untiered = Leaderboard.from_episodes([make("t1", "A", 1.0)])
    assert untiered.rows[0].tiers == ()  # no tier anywhere: no tier columns
    assert "tier" not in untiered.to_markdown()


def test_outputs_carry_the_same_figures() -> None:
    board = Leaderboard.from_episodes(fixture())
    data = json.loads(board.to_json())
    assert data["solved_threshold"] == 0.95
    assert data["rows"][0]["mean_reward"] == pytest.approx(board.rows[0].mean_reward)
    assert data["rows"][0]["pass_at_k"]["2"] == pytest.approx(2 / 3)
    assert data["rows"][1]["mean_cost_usd"] is None
    assert len(data["not_comparable"]) == 2

    rows = list(csv.DictReader(io.StringIO(board.to_csv())))
    assert [(r["agent"], r["comparable"]) for r in rows] == [
        ("A", "True"),
        ("B", "True"),
        ("A", "False"),
        ("A", "False"),
    ]
    assert float(rows[0]["pass@2"]) == pytest.approx(2 / 3)
    assert rows[1]["mean_cost_usd"] == ""

    markdown = board.to_markdown()
    assert "| 1 | A | m1 | 0.602 | 1.5/3 (50.0%) |" in markdown
    assert "## Not comparable" in markdown
    assert "diagnostic feedback" in markdown
    assert "unknown" in markdown
    assert board.rich_table().row_count == 4


def test_from_dirs_counts_the_latest_try_of_each_slot(tmp_path: Path) -> None:
    run = tmp_path / "run"
    failed = make("t1", "A", None, outcome=Outcome.INFRA_ERROR)
    retried = make("t1", "A", 1.0, started=START + timedelta(minutes=5))
    other = make("t2", "A", 0.4)
    for name, episode in [("t1__A__1", failed), ("t1__A__1__retry1", retried), ("t2__A__1", other)]:
        (run / name).mkdir(parents=True)
        episode.save(run / name / "episode.json")
    board = Leaderboard.from_dirs(run)
    assert len(board.episodes) == 2
    assert board.rows[0].mean_reward == pytest.approx((1.0 + 0.4) / 2)
    assert board.rows[0].errors == 0


def test_from_dirs_refuses_a_directory_without_records(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no episode records"):
        Leaderboard.from_dirs(tmp_path)


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown", "table"])
def test_leaderboard_command_writes_every_format(tmp_path: Path, fmt: str) -> None:
    from click.testing import CliRunner

    from lhtb.cli import main

    for i, episode in enumerate(fixture()):
        directory = tmp_path / "run" / f"ep{i}"
        directory.mkdir(parents=True)
        episode.save(directory / "episode.json")
    output = tmp_path / f"board.{fmt}"
    result = CliRunner().invoke(
        main, ["leaderboard", str(tmp_path / "run"), "--format", fmt, "-o", str(output)]
    )
    assert result.exit_code == 0, result.output
    text = output.read_text()
    assert "0.60" in text  # agent A's mean reward, 0.6017
    assert "budget changed" in text or fmt == "table"
