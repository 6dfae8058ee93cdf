"""The Episode record: derived verdicts, lossless versioned JSON, atomic files."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import attrs
import pytest

from lhtb.agents import Usage
from lhtb.episode import (
    EPISODE_SCHEMA_VERSION,
    Checkpoint,
    Episode,
    EpisodeConfig,
    FeedbackMode,
    Outcome,
    PassOutcome,
    Timings,
    TurnEnd,
    TurnRecord,
    VerifierPass,
)
from lhtb.errors import EpisodeFormatError
from lhtb.task import ContinueMode, IsolationMode, Visibility
from lhtb.verify import Scorecard, Subtask

START = datetime(2025, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)


def config(**changes: Any) -> EpisodeConfig:
    base = EpisodeConfig(
        task_name="climate-extremes",
        task_checksum="sha256:abc",
        agent="openai:gpt",
        budget_sec=5400.0,
        task_budget_sec=5400.0,
        continue_until_timeout=True,
        continue_mode=ContinueMode.SAME_CONVERSATION,
        feedback=FeedbackMode.BINARY,
        isolation=IsolationMode.SEPARATE,
        pass_threshold=0.95,
    )
    return attrs.evolve(base, **changes)


def episode(reward: float | None = 0.5, **changes: Any) -> Episode:
    base = Episode(
        id="ep-1", config=config(), outcome=Outcome.UNSOLVED, started_at=START, reward=reward
    )
    return attrs.evolve(base, **changes)


def full_episode() -> Episode:
    """An episode that uses every kind of field: enums, datetimes, nested records, Nones."""
    scorecard = Scorecard.from_subtasks(
        [
            Subtask("build", 1.0, 1.0, Visibility.PUBLIC, "ok"),
            Subtask("accuracy", 0.1 + 0.2, 3.0, Visibility.HIDDEN),
        ]
    )
    harbor = Scorecard(reward=0.25, source="reward.json", values={"reward": 0.25, "n": 4.0})
    later = START + timedelta(minutes=42, microseconds=7)
    return Episode(
        id="ep-2",
        config=config(
            seed=2**32 - 1,
            budget_sec=None,
            task_budget_sec=None,
            continue_mode=ContinueMode.RESTART,
            isolation=IsolationMode.SNAPSHOT,
            max_passes=5,
            verifier_time_counts=False,
            backend="docker",
            model="gpt-x",
            category="science",
        ),
        outcome=Outcome.VERIFIER_ERROR,
        started_at=START,
        reward=None,
        best_reward=scorecard.reward,
        turns=(
            TurnRecord(1, START, 12.5, TurnEnd.RETURNED, usage=Usage(1, 10, 5, 2, None)),
            TurnRecord(
                2,
                later.astimezone(timezone(timedelta(hours=-5))),
                0.25,
                TurnEnd.ERROR,
                feedback="Not solved yet (pass 1). 80 minutes remain.",
                error="Traceback ...\nValueError: x",
                usage=Usage(2, 100, 50, 0, 0.0125),
            ),
        ),
        passes=(
            VerifierPass(
                1, START, 3.5, PassOutcome.FAILED, scorecard.reward, scorecard, None, "p1"
            ),
            VerifierPass(2, later, 1.0, PassOutcome.FAILED, 0.25, harbor),
            VerifierPass(
                3,
                later,
                600.0,
                PassOutcome.ERROR,
                error="no reward file",
                final=True,
                elapsed_sec=2520.5,
            ),
        ),
        checkpoints=(
            Checkpoint(1, START, 600.0, 0.4, harbor, 0.012, 31.5, log_dir="verifier/ckpt-001"),
            Checkpoint(2, later, 1200.0, None, None, 0.01, 2.0, error="grading failed"),
        ),
        checkpoints_skipped=3,
        error="verifier produced no reward",
        ended_at=later,
        timings=Timings(1.5, 2000.25, 604.5, 0.75, 2607.0),
        usage=Usage(3, 110, 55, 2, None),
        attempt=2,
    )


# -- derived verdicts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reward", "threshold", "solved", "strict"),
    [
        (None, 0.95, False, False),
        (0.0, 0.95, False, False),
        (0.949999, 0.95, False, False),
        (0.95, 0.95, True, False),
        (0.99, 0.95, True, False),
        (1.0, 0.95, True, True),
        (0.999999999, 0.95, True, False),
        (0.5, 0.5, True, False),
        (1.0, 1.0, True, True),
    ],
)
def test_solved_and_strict(
    reward: float | None, threshold: float, solved: bool, strict: bool
) -> None:
    record = episode(reward, config=config(pass_threshold=threshold))
    assert record.solved is solved
    assert record.strict is strict


def test_official_reward_is_the_final_one_not_the_best() -> None:
    record = episode(0.4, best_reward=1.0)
    assert not record.solved
    assert not record.strict


@pytest.mark.parametrize(
    ("changes", "comparable"),
    [
        ({}, True),
        ({"feedback": FeedbackMode.DIAGNOSTIC}, False),
        ({"budget_sec": 600.0}, False),
        ({"budget_sec": None}, False),
        ({"budget_sec": None, "task_budget_sec": None}, True),
        ({"continue_until_timeout": False, "isolation": IsolationMode.SHARED}, True),
    ],
)
def test_comparable(changes: dict[str, Any], comparable: bool) -> None:
    assert config(**changes).comparable is comparable


def test_scorecard_and_finished() -> None:
    assert episode().scorecard is None
    assert not episode().finished
    record = full_episode()
    assert record.finished
    assert record.scorecard is None  # the final pass produced none
    assert full_episode().passes[0].scorecard is not None


def test_outcome_retryable() -> None:
    assert [o for o in Outcome if o.retryable] == [Outcome.INFRA_ERROR]


# -- JSON round trip ---------------------------------------------------------------------------


def test_round_trip_is_lossless() -> None:
    record = full_episode()
    again = Episode.from_json(record.to_json())
    assert again == record
    assert again.to_json() == record.to_json()
    assert again.turns[1].started_at.utcoffset() == timedelta(hours=-5)
    assert again.started_at.tzinfo is not None
    assert again.outcome is Outcome.VERIFIER_ERROR
    assert again.config.continue_mode is ContinueMode.RESTART
    assert again.passes[0].scorecard is not None
    assert again.passes[0].scorecard.subtasks[1].visibility is Visibility.HIDDEN
    assert again.passes[0].scorecard.subtasks[1].score == 0.1 + 0.2
    assert again.passes[1].scorecard is not None
    assert again.passes[1].scorecard.values == {"reward": 0.25, "n": 4.0}
    assert again.usage.cost_usd is None
    assert again.turns[1].usage.cost_usd == 0.0125
    assert again.config.seed == 2**32 - 1
    assert again.checkpoints[0].scorecard == record.checkpoints[0].scorecard
    assert again.checkpoints[1].error == "grading failed"
    assert again.checkpoints_skipped == 3
    assert again.passes[2].elapsed_sec == 2520.5


def test_a_record_from_before_checkpoints_reads_with_none() -> None:
    data = episode().to_dict()
    for key in ("checkpoints", "checkpoints_skipped"):
        del data[key]
    del data["config"]["checkpoint_interval_sec"]
    data["schema_version"] = "1.1"
    data["passes"] = [
        {"number": 1, "started_at": "2025-03-01T09:30:15+00:00", "duration_sec": 1.0}
        | {"outcome": "failed", "reward": 0.5, "final": True}
    ]
    record = Episode.from_dict(data)
    assert (record.checkpoints, record.checkpoints_skipped) == ((), 0)
    assert record.config.checkpoint_interval_sec is None
    assert record.passes[0].elapsed_sec is None


def test_a_record_from_before_tiers_reads_with_no_tier() -> None:
    data = episode().to_dict()
    del data["config"]["tier"]
    data["schema_version"] = "1.2"
    assert Episode.from_dict(data).config.tier is None


def test_a_record_from_before_seeds_reads_with_no_seed() -> None:
    data = episode().to_dict()
    del data["config"]["seed"]
    data["schema_version"] = "1.0"
    assert Episode.from_dict(data).config.seed is None


def test_round_trip_of_naive_datetimes_and_minimal_record() -> None:
    record = episode(started_at=datetime(2024, 1, 1, 12), ended_at=datetime(2024, 1, 1, 13))
    again = Episode.from_json(record.to_json(indent=None))
    assert again == record
    assert again.started_at.tzinfo is None


def test_json_carries_derived_fields_and_version() -> None:
    data = json.loads(episode(0.97).to_json())
    assert data["schema_version"] == EPISODE_SCHEMA_VERSION
    assert data["solved"] is True
    assert data["strict"] is False
    assert data["config"]["comparable"] is True
    assert data["outcome"] == "unsolved"
    assert data["started_at"] == "2025-03-01T09:30:15.123456+00:00"


def test_newer_minor_version_is_read() -> None:
    data = episode().to_dict()
    data["schema_version"] = "1.9"
    assert Episode.from_dict(data).reward == 0.5


def mutate(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(full_episode().to_json())
    change(data)
    return data


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (
            mutate(lambda d: d.update(schema_version="2.0")),
            r"episode schema version 2\.0 is newer than this lhtb reads \(1\.3\)\. upgrade lhtb",
        ),
        (
            mutate(lambda d: d.update(schema_version="0.3")),
            r"episode schema version 0\.3 is older than this lhtb reads",
        ),
        (
            mutate(lambda d: d.pop("schema_version")),
            r"'schema_version' must be a string like '1\.3', got None",
        ),
        (mutate(lambda d: d.update(schema_version=1)), r"'schema_version' must be a string"),
        (mutate(lambda d: d.update(schema_version="one")), r"'schema_version' must be a string"),
        (mutate(lambda d: d.update(config=[])), r"'config' is missing or not an object"),
        (mutate(lambda d: d.pop("config")), r"'config' is missing or not an object"),
        (mutate(lambda d: d.pop("id")), r"required field missing @ episode\.id"),
        (
            mutate(lambda d: d["config"].pop("pass_threshold")),
            r"required field missing @ episode\.config\.pass_threshold",
        ),
        (mutate(lambda d: d.update(outcome="won")), r"@ episode\.outcome"),
        (mutate(lambda d: d.update(started_at="yesterday")), r"@ episode\.started_at"),
        (mutate(lambda d: d.update(started_at=1700000000)), r"@ episode\.started_at"),
        (mutate(lambda d: d.update(reward="0.5")), r"expected float \| None @ episode\.reward"),
        (mutate(lambda d: d.update(attempt=1.5)), r"expected int @ episode\.attempt"),
        (mutate(lambda d: d.update(attempt=True)), r"expected int @ episode\.attempt"),
        (
            mutate(lambda d: d["config"].update(continue_until_timeout="false")),
            r"expected bool @ episode\.config\.continue_until_timeout",
        ),
        (mutate(lambda d: d.update(id=7)), r"expected str @ episode\.id"),
        (mutate(lambda d: d.update(passes=None)), r"@ episode\.passes"),
        (mutate(lambda d: d.update(passes=[None])), r"@ episode\.passes\[0\]"),
        (mutate(lambda d: d.update(timings=5)), r"@ episode\.timings"),
        (
            mutate(lambda d: d["passes"][0]["scorecard"]["subtasks"][0].update(score=1.5)),
            r"@ episode\.passes\[0\]\.scorecard\.subtasks\[0\]",
        ),
        (
            mutate(lambda d: d["passes"][1]["scorecard"]["values"].update(n="4")),
            r"@ episode\.passes\[1\]\.scorecard\.values\['n'\]",
        ),
        (
            mutate(lambda d: d["turns"][0]["usage"].update(prompt_tokens=-1)),
            r"@ episode\.turns\[0\]\.usage",
        ),
        (
            mutate(lambda d: d.update(reward=0.99)),
            r"episode record says solved is False but its data gives True",
        ),
        (
            mutate(lambda d: d.update(solved=True)),
            r"episode record says solved is True but its data gives False",
        ),
        (
            mutate(lambda d: d["config"].update(feedback="diagnostic")),
            r"says config\.comparable is True but its data gives False",
        ),
    ],
)
def test_malformed_records_are_refused(data: dict[str, Any], match: str) -> None:
    with pytest.raises(EpisodeFormatError, match=match):
        Episode.from_dict(data)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "episode record is not JSON: Expecting value: line 1 column 1"),
        ("[]", "episode record is not a JSON object"),
        ("null", "episode record is not a JSON object"),
        ('"episode"', "episode record is not a JSON object"),
    ],
)
def test_non_records_are_refused(text: str, match: str) -> None:
    with pytest.raises(EpisodeFormatError, match=match):
        Episode.from_json(text)


@pytest.mark.parametrize("cut", [1, 10, 100, 1000, -2])
def test_truncated_records_are_refused(cut: int) -> None:
    text = full_episode().to_json()
    with pytest.raises(EpisodeFormatError, match="episode record is not JSON"):
        Episode.from_json(text[:cut])


# -- files -------------------------------------------------------------------------------------


def test_save_and_load(tmp_path: Path) -> None:
    path = tmp_path / "episode.json"
    record = full_episode()
    record.save(path)
    assert Episode.load(path) == record
    assert [p.name for p in tmp_path.iterdir()] == ["episode.json"]


def test_save_replaces_the_previous_record(tmp_path: Path) -> None:
    path = tmp_path / "episode.json"
    episode(0.1).save(path)
    episode(0.2).save(path)
    assert Episode.load(path).reward == 0.2
    assert [p.name for p in tmp_path.iterdir()] == ["episode.json"]


def test_failed_save_keeps_the_previous_record(tmp_path: Path) -> None:
    path = tmp_path / "episode.json"
    episode(0.1).save(path)
    unserialisable = episode(0.2, error=object())  # json.dumps fails mid-save
    with pytest.raises(TypeError):
        unserialisable.save(path)
    assert Episode.load(path).reward == 0.1
    assert [p.name for p in tmp_path.iterdir()] == ["episode.json"]


def test_save_into_a_missing_directory_fails_cleanly(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        episode().save(tmp_path / "missing" / "episode.json")


def test_load_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "episode.json"
    path.write_text(full_episode().to_json()[:-50], encoding="utf-8")
    with pytest.raises(EpisodeFormatError, match="is not JSON") as info:
        Episode.load(path)
    assert info.value.where == str(path)
    assert str(info.value).startswith(f"{path}: episode record is not JSON")


def test_load_refuses_newer_major_version_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "episode.json"
    data = episode().to_dict()
    data["schema_version"] = "3.1"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(EpisodeFormatError, match=r"newer than this lhtb reads") as info:
        Episode.load(path)
    assert info.value.where == str(path)
    assert info.value.fix == "upgrade lhtb to read this record"


def test_load_refuses_non_utf8(tmp_path: Path) -> None:
    path = tmp_path / "episode.json"
    path.write_bytes(b'{"id": "\xff"}')
    with pytest.raises(EpisodeFormatError, match=r"not UTF-8 text \(byte 8\)") as info:
        Episode.load(path)
    assert info.value.where == str(path)
