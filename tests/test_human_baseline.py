"""``lhtb baseline``: people's time-to-solve per task, and the leaderboard and report using it."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import attrs
from click.testing import CliRunner

from episode_fixtures import START, make
from lhtb.analysis import HumanBaseline, time_to_solve
from lhtb.cli import main
from lhtb.episode import Episode, PassOutcome, TurnEnd, TurnRecord, VerifierPass


def played(
    task: str,
    person: str,
    passes: list[tuple[float, float]],
    *,
    day: int = 0,
    turn_at: float = 2.0,
) -> Episode:
    """A person's episode: the first turn starts ``turn_at`` minutes after the episode;
    ``passes`` are ``(minutes after the turn started, reward)``."""
    started = START + timedelta(days=day)
    turn_start = started + timedelta(minutes=turn_at)
    records = tuple(
        VerifierPass(
            number=i,
            started_at=turn_start + timedelta(minutes=minutes),
            duration_sec=5.0,
            outcome=PassOutcome.PASSED if reward >= 0.95 else PassOutcome.FAILED,
            reward=reward,
            final=i == len(passes),
        )
        for i, (minutes, reward) in enumerate(passes, 1)
    )
    base = make(task, f"human:{person}", records[-1].reward if records else 0.0, started=started)
    turn = TurnRecord(number=1, started_at=turn_start, duration_sec=60.0, end=TurnEnd.RETURNED)
    return attrs.evolve(base, id=f"{task}-{person}-{day}", passes=records, turns=(turn,))


def people() -> list[Episode]:
    return [
        # t1: alice 30 min (after a rejected pass at 20), bob 50, carol 10 (her replay
        # a day later is faster and does not count), dave never solves it.
        played("t1", "alice", [(20, 0.4), (30, 1.0)]),
        played("t1", "bob", [(50, 0.96)]),
        played("t1", "carol", [(10, 1.0)]),
        played("t1", "carol", [(4, 1.0)], day=1),
        played("t1", "dave", [(60, 0.5)]),
        # t2: erin 12 and frank 20 -> median 16; solved early but broken at the end: no time
        played("t2", "erin", [(12, 1.0)]),
        played("t2", "frank", [(20, 1.0)]),
        played("t2", "gina", [(5, 1.0), (9, 0.1)]),
        # t3: played but never solved
        played("t3", "alice", [(45, 0.2)]),
        # a model on t1: not a person, ignored
        make("t1", "A", 1.0),
    ]


def test_time_to_solve_runs_from_the_first_turn_to_the_solving_pass() -> None:
    assert time_to_solve(played("t1", "x", [(20, 0.4), (30, 1.0)], turn_at=7)) == 30 * 60
    assert time_to_solve(played("t1", "x", [(20, 0.4)])) is None
    assert time_to_solve(played("t1", "x", [(5, 1.0), (9, 0.1)])) is None


def test_baseline_is_the_median_over_people_of_their_first_solve() -> None:
    baseline = HumanBaseline.from_episodes(people())
    assert baseline.minutes == {"t1": 30.0, "t2": 16.0}
    t1 = baseline.tasks["t1"]
    assert dict(t1.times_min) == {"alice": 30.0, "bob": 50.0, "carol": 10.0}
    assert t1.people == 3
    assert t1.unsolved_episodes == 1  # dave
    assert baseline.tasks["t2"].unsolved_episodes == 1  # gina's final reward is not solved
    assert baseline.unsolved_only == ("t3",)


def test_baseline_file_round_trips(tmp_path: Path) -> None:
    baseline = HumanBaseline.from_episodes(people())
    path = baseline.save(tmp_path / "deep" / "baseline.json")
    assert HumanBaseline.load(path) == baseline
    data = json.loads(path.read_text())
    assert data["schema"] == "lhtb-human-baseline/1"
    assert data["tasks"]["t1"] == {
        "minutes": 30.0,
        "people": 3,
        "times_min": {"alice": 30.0, "bob": 50.0, "carol": 10.0},
        "unsolved_episodes": 1,
    }


def write_run(root: Path, episodes: list[Episode]) -> Path:
    for i, episode in enumerate(episodes):
        directory = root / f"{episode.config.task_name}__{i}"
        directory.mkdir(parents=True)
        episode.save(directory / "episode.json")
    return root


def test_cli_baseline_then_leaderboard_and_report_use_it(tmp_path: Path) -> None:
    humans = write_run(tmp_path / "humans", people())
    # agent A: solves t1 (30 min) at both attempts, half of t2 (16 min); t3 has no time.
    models = write_run(
        tmp_path / "models",
        [
            make("t1", "A", 1.0),
            make("t1", "A", 1.0, attempt=2),
            make("t2", "A", 1.0),
            make("t2", "A", 0.0, attempt=2),
            make("t3", "A", 1.0),
        ],
    )
    runner = CliRunner()
    out = tmp_path / "baseline.json"
    result = runner.invoke(main, ["baseline", str(humans), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "t1" in result.output
    assert "30.0" in result.output
    assert "played but unsolved (no time): t3" in result.output
    assert f"wrote {out} (2 tasks)" in result.output

    result = runner.invoke(
        main, ["leaderboard", str(models), "--baseline", str(out), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    board = json.loads(result.output)
    assert board["task_minutes"] == {"t1": 30.0, "t2": 16.0}
    assert board["measured_tasks"] == ["t1", "t2"]
    horizon = board["rows"][0]["horizon"]
    # solved share 0.5 at 16 min and 1.0 at 30: success rises with time -> no horizon
    assert horizon["status"] == "not estimable"
    assert (horizon["tasks"], horizon["untimed"]) == (2, 1)
    table = runner.invoke(main, ["leaderboard", str(models), "--baseline", str(out)])
    assert "50% horizon" in table.output
    assert "not estimable" in table.output
    assert "2 measured by people, 0 expert estimates, 1 tasks without a time" in table.output
    markdown = runner.invoke(
        main, ["leaderboard", str(models), "--baseline", str(out), "--format", "markdown"]
    )
    assert "| 50% horizon min (95% CI) |" in markdown.output
    assert "2 measured by people" in markdown.output

    report = tmp_path / "report.html"
    result = runner.invoke(main, ["report", str(models), "--baseline", str(out), "-o", str(report)])
    assert result.exit_code == 0, result.output
    assert "2 measured by people, 0 expert estimates, 1 tasks without a time" in (
        report.read_text()
    )


def test_cli_errors_are_messages_not_tracebacks(tmp_path: Path) -> None:
    models = write_run(tmp_path / "models", [make("t1", "A", 1.0)])
    runner = CliRunner()
    result = runner.invoke(main, ["baseline", str(models)])
    assert result.exit_code == 1
    assert "no human episodes (agent `human:<name>`) found" in result.output
    assert "lhtb play" in result.output
    bad = tmp_path / "bad.json"
    for text, message in [
        ("{", "cannot read the baseline file"),
        ('{"tasks": {}}', "not a baseline file"),
        ('{"schema": "lhtb-human-baseline/1", "tasks": {"t1": {"minutes": 0}}}', "positive"),
    ]:
        bad.write_text(text)
        result = runner.invoke(main, ["leaderboard", str(models), "--baseline", str(bad)])
        assert result.exit_code == 1, result.output
        assert message in result.output
        assert "Traceback" not in result.output
