"""The report of episodes with progress over time: timeline, matrix, curves, warnings."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import label_problems, png_size, rendered_dom, screenshot
from lhtb.analysis import Leaderboard, fraction_rewards, mean_normalised_auc, normalised_auc
from lhtb.cli import main
from lhtb.report import render_report
from progress_fixtures import (
    CHECKPOINTS,
    LONG_AGENT,
    TURNS,
    climbing_episode,
    progress_episodes,
    quick_episode,
    scores_at,
    write_progress_run,
)

SCREENSHOT = Path(__file__).resolve().parents[1] / "build" / "report-timeline.png"
"""A stable copy of the Chromium screenshot, for people to look at (not committed)."""


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> str:
    return render_report(write_progress_run(tmp_path_factory.mktemp("run")))


def section(html: str, episode_id: str) -> str:
    """The markup of one episode's section."""
    for part in html.split('<section class="episode"')[1:]:
        if f'<td class="l">{episode_id}</td>' in part:
            return part.split("</section>", 1)[0]
    raise AssertionError(f"no section for episode {episode_id}")


def svg(markup: str, element_id: str) -> str:
    return markup.split(f'<svg id="{element_id}"', 1)[1].split("</svg>", 1)[0]


def test_timeline_has_a_mark_per_turn_pass_and_checkpoint(html: str) -> None:
    climb = section(html, "climb")
    chart = climb.split('class="timeline"', 1)[1].split("</svg>", 1)[0]
    assert chart.count('class="mark turn"') == TURNS
    assert chart.count('class="mark pass ') == TURNS
    assert chart.count('class="mark checkpoint ') == CHECKPOINTS
    assert chart.count('class="mark checkpoint s-error"') == 1  # the failed grading: no point
    assert chart.count('class="reward-point pass"') == TURNS
    assert chart.count('class="reward-point checkpoint"') == CHECKPOINTS - 1
    # The step line: (0, 0), then two corners per graded reward.
    line = re.search(r'class="reward-curve"[^>]*points="([^"]+)"', chart)
    assert line is not None
    assert len(line[1].split()) == 1 + 2 * (TURNS + CHECKPOINTS - 1)
    assert (
        "checkpoint 7 at 630 s: no reward, capture 12 ms, graded in 8.0 s: checkpoint grading"
        in (chart)
    )
    assert "pass 31 (final) at 1850 s: failed, reward 0.749" in chart
    assert "20 graded, 2 skipped while grading fell behind" in climb
    # The episode's stamina figures, as lhtb.analysis computes them.
    assert '<th class="l">checkpoints every</th><td class="l">1.5m</td>' in climb
    assert '<th class="l">time to R &gt;= 0.95</th><td class="l">never</td>' in climb
    assert f'<td class="l">{normalised_auc(climbing_episode()):.3f}</td>' in climb


def test_subtask_matrix_has_a_column_per_grading(html: str) -> None:
    climb = section(html, "climb")
    matrix = climb.split('<table class="matrix">', 1)[1].split("</table>", 1)[0]
    assert matrix.count('<th class="col pass"') == TURNS
    assert matrix.count('<th class="col checkpoint"') == CHECKPOINTS
    rows = re.findall(r'<tr><th class="l" title="[a-z]+">([^<]+)</th>', matrix)
    assert rows == ["build", "unit-tests", "hidden-stress"]
    assert 'class="reward"' in matrix
    # Checkpoint 5 at 450 s: build 450/600 = 0.75; pass 2 at 110 s: unit-tests 110/1200.
    assert 'title="build at c5: 0.750">0.75</td>' in matrix
    assert f'title="unit-tests at p2: {scores_at(110).subtasks[1].score:.3f}">' in matrix
    # The failed checkpoint's column is empty in every row, reward included.
    assert matrix.count('title="build at c7">-</td>') == 1
    assert matrix.count('title="reward at c7">-</td>') == 1


def test_repeated_feedback_is_one_line_and_one_scorecard(html: str) -> None:
    climb = section(html, "climb")
    assert climb.count("did not pass the hidden verification") == 1
    assert '<span class="count">\u00d730</span>' in climb
    assert "turns 2\u201331" in climb
    assert "(verifier pass 1\u202630)" in climb  # the numbers that changed, first to last
    assert "About 30\u20261 minute(s)" in climb
    # 31 passes, one scorecard table: the final pass's (also the best one here).
    assert climb.count('<table class="scorecard"') == 1
    assert "scorecard: pass 31 (final): failed, reward 0.749" in climb


def test_agent_curves_are_the_mean_of_the_episode_curves(html: str) -> None:
    chart = svg(html, "curves")
    assert chart.count('class="agent-curve"') == 2  # A and the long name; B has no timed passes
    a_episodes = [e for e in progress_episodes() if e.config.agent == "A"]
    at_end = fraction_rewards(a_episodes)[1.0]
    assert f"A / m1: mean reward at 25%: {fraction_rewards(a_episodes)[0.25]:.3f}" in chart
    assert f"100%: {at_end:.3f} of the budget (2 timed episodes)" in chart
    assert 'id="curves-missing"' in html
    assert "No timed reward curve: B (" in html
    # The leaderboard has the same figures as columns.
    table = html.split('id="leaderboard"', 1)[1].split("</table>", 1)[0]
    assert ">R@50%<" in table
    assert f">{mean_normalised_auc(a_episodes):.3f}</td>" in table


def test_task_set_warning_names_the_rows_that_differ(tmp_path: Path, html: str) -> None:
    warning = html.split('id="task-set-warning"', 1)[1].split("</div>", 1)[0]
    assert "Rows cover different task sets" in warning
    assert f"<b>{LONG_AGENT} / " in warning
    assert "1 of 2 tasks (missing t2)" in warning
    assert "<b>A / m1</b>: 2 of 2 tasks" in warning
    # The same report over rows with one task set has no warning.
    same = tmp_path / "same"
    for i, episode in enumerate([climbing_episode(), quick_episode("t2", "A", "m1")]):
        (same / str(i)).mkdir(parents=True)
        episode.save(same / str(i) / "episode.json")
    other = render_report(same)
    assert 'id="leaderboard"' in other
    assert "task-set-warning" not in other


def test_unknown_cost_sits_in_its_own_lane(html: str) -> None:
    chart = svg(html, "scatter")
    lane = re.search(
        r'<g class="cost-unknown-lane"><rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', chart
    )
    assert lane is not None
    left, right = float(lane[1]), float(lane[1]) + float(lane[2])
    points = re.findall(
        r'<g class="point( unknown-cost)?"><title>([^<]+)</title><circle cx="([\d.]+)"', chart
    )
    assert len(points) == 3
    for unknown, tip, cx in points:
        inside = left < float(cx) < right
        assert inside is bool(unknown), tip
    [unknown_tip] = [tip for unknown, tip, _ in points if unknown]
    assert unknown_tip.startswith(LONG_AGENT)
    assert "cost unknown (1 of 1 episodes without a cost)" in unknown_tip
    # The long name is cut to fit the legend; the tooltip keeps it whole.
    assert f"<title>3  {LONG_AGENT} / " in chart or f"<title>2  {LONG_AGENT} / " in chart
    assert "\u2026</text>" in chart
    board = Leaderboard.from_episodes(progress_episodes())
    assert [r.mean_cost_usd is None for r in board.rows].count(True) == 1


def test_report_in_chromium_shows_timeline_and_curves(tmp_path: Path) -> None:
    run = write_progress_run(tmp_path / "run")
    output = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(run), "-o", str(output)])
    assert result.exit_code == 0, result.output
    dom = rendered_dom(output, tmp_path / "profile")
    assert '<body data-ready="1">' in dom
    assert "5 of 5 episodes shown" in dom
    assert dom.count('class="timeline"') == 5
    assert dom.count('class="mark turn"') == TURNS + 4
    assert '<svg id="curves"' in dom
    assert 'id="task-set-warning"' in dom
    checked, problems = label_problems(output, tmp_path / "profile")
    assert checked > 100
    assert problems == []
    # A screenshot with the climbing episode opened (its link opens it).
    anchor = re.search(r'<section class="episode" id="(ep-\d+)"[^>]*data-search="t1 a / m1', dom)
    assert anchor is not None
    shot = tmp_path / "report.png"
    screenshot(
        f"{output.as_uri()}#{anchor[1]}", shot, tmp_path / "profile", width=1300, height=4400
    )
    assert shot.stat().st_size > 50_000  # charts and tables, not a blank page
    SCREENSHOT.parent.mkdir(exist_ok=True)
    shutil.copyfile(shot, SCREENSHOT)
    assert png_size(SCREENSHOT) == (1300, 4400)


def test_crowded_charts_keep_every_label_apart_and_inside(tmp_path: Path) -> None:
    """Twelve rows on one spot (three of them without a cost), names up to 80 characters."""
    names = ["a", "gpt", "x" * 80, "an-agent/with-a-very-long-scaffold-name", *"bcdefghij"]
    run = tmp_path / "run"
    for k, name in enumerate(names):
        for task in ("t1", "t2-" + "long-task-name-" * 4):
            episode = quick_episode(task, name, f"model-{k}", cost=None if k < 3 else 0.2)
            (run / f"{k}-{task}").mkdir(parents=True)
            episode.save(run / f"{k}-{task}" / "episode.json")
    output = tmp_path / "report.html"
    output.write_text(render_report(run), encoding="utf-8")
    chart = svg(output.read_text(encoding="utf-8"), "scatter")
    # Ten rows share one (cost, reward): nine are moved apart, each with a line to its spot.
    centres = [
        (float(x), float(y))
        for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="8"', chart)
    ]
    assert len(centres) == len(names)
    assert chart.count('class="leader"') >= 9
    for i, (x1, y1) in enumerate(centres):
        for x2, y2 in centres[:i]:
            assert math.hypot(x1 - x2, y1 - y2) >= 16, (x1, y1, x2, y2)
    checked, problems = label_problems(output, tmp_path / "profile")
    assert checked > 100
    assert problems == []
