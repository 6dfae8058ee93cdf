"""The HTML report, opened in headless Chromium: what a reader sees after the scripts ran."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from browser import label_problems, rendered_dom
from episode_fixtures import fixture
from lhtb.analysis import HumanBaseline, TaskBaseline
from lhtb.cli import main
from lhtb.report import render_report

BASELINE = {"t1": 2.0, "t2": 8.0, "t3": 30.0}
INJECTION = '<img src="x" onerror="document.title=1">'


def write_run(root: Path) -> Path:
    for i, episode in enumerate(fixture()):
        directory = root / f"{episode.config.task_name}__{episode.config.agent}__{i}"
        directory.mkdir(parents=True)
        episode.save(directory / "episode.json")
    trajectory = {
        "schema_version": "ATIF-v1.7",
        "steps": [
            {"step_id": 1, "source": "user", "message": "Write 42 to /app/answer.txt."},
            {
                "step_id": 2,
                "source": "agent",
                "message": f"writing the answer {INJECTION}",
                "tool_calls": [
                    {
                        "tool_call_id": "c1",
                        "function_name": "bash_command",
                        "arguments": {"keystrokes": "echo 42 > /app/answer.txt"},
                    }
                ],
                "observation": {"results": [{"source_call_id": "c1", "content": "OBSERVED-42"}]},
            },
        ],
    }
    (root / "t1__A__0" / "trajectory.json").write_text(json.dumps(trajectory))
    return root


def test_report_is_self_contained(tmp_path: Path) -> None:
    html = render_report(write_run(tmp_path / "run"), baseline=BASELINE)
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<[^>]*\ssrc=", html)  # no element loads anything
    assert "<link" not in html
    assert INJECTION not in html  # escaped, never markup


def test_report_in_chromium_shows_the_run(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    output = tmp_path / "report.html"
    baseline = tmp_path / "baseline.json"
    HumanBaseline(
        tasks={t: TaskBaseline(minutes=m, times_min={"p": m}) for t, m in BASELINE.items()}
    ).save(baseline)
    result = CliRunner().invoke(
        main, ["report", str(run), "-o", str(output), "--baseline", str(baseline)]
    )
    assert result.exit_code == 0, result.output
    dom = rendered_dom(output, tmp_path / "profile")

    assert '<body data-ready="1">' in dom  # the inline script ran to the end
    assert "11 of 11 episodes shown" in dom
    # Leaderboard: 2 ranked rows, then the 2 non-comparable rows in italics.
    table = dom.split('id="leaderboard"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr") == 5
    assert table.count('class="apart"') == 2
    assert '<td class="" data-v="0.6016666666666667">0.602</td>' in table
    assert "no: diagnostic feedback" in table
    assert "no: budget changed" in table
    # Scatter: one point per row, B at "cost unknown".
    svg = dom.split('<svg id="scatter"', 1)[1].split("</svg>", 1)[0]
    assert svg.count("<circle") == 4
    assert "cost unknown" in svg
    assert "B: mean reward 0.433, cost unknown" in svg
    # Heatmap: 3 tasks x 4 rows, filled where a row ran the task.
    heatmap = dom.split('id="heatmap"', 1)[1].split("</table>", 1)[0]
    assert heatmap.count('class="cell"') == 8
    assert heatmap.count('class="cell empty"') == 4
    assert 'href="#ep-' in heatmap
    # Time horizon: A's fit (t1 solved at 2 min, t2 failed at 8, t3 half at 30) as a
    # curve with its dashed 50% mark; every row's timed tasks as points.
    assert "3 measured by people, 0 expert estimates, 0 tasks without a time left out" in dom
    chart = dom.split('<svg id="horizon"', 1)[1].split("</svg>", 1)[0]
    assert chart.count('class="curve"') == 1
    assert chart.count('class="horizon-mark"') == 1
    assert chart.count('class="task-point"') == 3 + 3 + 1 + 1
    assert "A / m1 · t3: 30 min (measured), solved 0.50" in chart
    assert re.search(r"A / m1: \d+\.\d \(\d+\.\d-\d+\.\d\)", chart)
    assert "B: not estimable" in chart
    assert ">8m<" in chart  # a power-of-two tick on the log axis
    # Episodes: one section each, with passes, scorecards and the trajectory.
    assert dom.count('<section class="episode"') == 11
    assert "pass 1 (final): solved" not in dom  # pass outcomes are pass outcomes
    assert "pass 1 (final): passed, reward 1.000" in dom
    assert '<td class="l">stress</td>' in dom
    assert "trajectory (2 steps)" in dom
    assert "OBSERVED-42" in dom
    assert "bash_command" in dom
    assert "<img" not in dom  # the injected markup stayed text
    assert "writing the answer &lt;img" in dom
    # Every chart label (long row names included) lies inside its chart, none on another.
    checked, problems = label_problems(output, tmp_path / "profile")
    assert checked > 40
    assert problems == []


def test_trajectory_budget_keeps_large_reports_small(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    full = render_report(run)
    bounded = render_report(run, trajectory_chars=0)
    assert "OBSERVED-42" in full
    assert "OBSERVED-42" not in bounded
    assert "trajectory (2 steps)" in bounded
    assert "2 more steps in" in bounded
