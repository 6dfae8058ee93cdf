"""The scorecard reader: precedence, validation of every reward file, agreement."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from lhtb.errors import RewardFileError, VerifierError
from lhtb.task import SubtaskSpec, Visibility
from lhtb.verify import Scorecard, Subtask, check_declared, read_scorecard
from lhtb.verify._scoring import MAX_REWARD_FILE_BYTES


def write(directory: Path, name: str, content: str | bytes | object) -> Path:
    path = directory / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


def card(*subtasks: dict[str, object], **top: object) -> dict[str, object]:
    return {"subtasks": list(subtasks), **top}


def reward_error(directory: Path, match: str) -> RewardFileError:
    with pytest.raises(RewardFileError, match=match) as info:
        read_scorecard(directory)
    return info.value


# -- scorecard.json ----------------------------------------------------------------------------


def test_scorecard_weighted_mean_and_fields(tmp_path: Path) -> None:
    write(
        tmp_path,
        "scorecard.json",
        card(
            {"name": "builds", "score": 1, "weight": 1, "visibility": "public"},
            {"name": "accuracy", "score": 0.25, "weight": 3, "message": "3 of 12 within tol"},
        ),
    )
    result = read_scorecard(tmp_path)
    assert result.reward == pytest.approx((1 * 1 + 3 * 0.25) / 4)
    assert result.source == "scorecard.json"
    assert result.values == {}
    assert result.subtasks == (
        Subtask("builds", 1.0, 1.0, Visibility.PUBLIC, None),
        Subtask("accuracy", 0.25, 3.0, Visibility.HIDDEN, "3 of 12 within tol"),
    )


def test_scorecard_defaults_weight_one_and_hidden(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", card({"name": "a", "score": 0.5}, {"name": "b", "score": 0}))
    result = read_scorecard(tmp_path)
    assert result.reward == 0.25
    assert all(s.weight == 1.0 and s.visibility is Visibility.HIDDEN for s in result.subtasks)


def test_all_ones_is_exactly_one(tmp_path: Path) -> None:
    subtasks = [{"name": f"t{i}", "score": 1, "weight": w} for i, w in enumerate((0.1, 0.2, 0.7))]
    write(tmp_path, "scorecard.json", card(*subtasks))
    assert read_scorecard(tmp_path).reward == 1.0


def test_public_and_hidden_rewards(tmp_path: Path) -> None:
    write(
        tmp_path,
        "scorecard.json",
        card(
            {"name": "p1", "score": 1, "weight": 1, "visibility": "public"},
            {"name": "p2", "score": 0.5, "weight": 1, "visibility": "public"},
            {"name": "h1", "score": 0, "weight": 2, "visibility": "hidden"},
        ),
    )
    result = read_scorecard(tmp_path)
    assert result.public_reward == 0.75
    assert result.hidden_reward == 0.0
    assert result.reward == pytest.approx(1.5 / 4)


def test_public_or_hidden_reward_is_none_without_such_subtasks(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", card({"name": "p", "score": 1, "visibility": "public"}))
    result = read_scorecard(tmp_path)
    assert result.public_reward == 1.0
    assert result.hidden_reward is None


def test_reward_only_files_have_no_split(tmp_path: Path) -> None:
    write(tmp_path, "reward.txt", "0.5")
    result = read_scorecard(tmp_path)
    assert result.public_reward is None
    assert result.hidden_reward is None


def test_stated_reward_that_matches_is_accepted(tmp_path: Path) -> None:
    write(
        tmp_path,
        "scorecard.json",
        card({"name": "a", "score": 1 / 3}, {"name": "b", "score": 1}, reward=2 / 3 + 5e-7),
    )
    assert read_scorecard(tmp_path).reward == pytest.approx(2 / 3)


def test_stated_reward_that_differs_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", card({"name": "a", "score": 0.5}, reward=0.6))
    error = reward_error(tmp_path, r"top-level 'reward' 0\.6 differs from the weighted mean")
    assert error.path == tmp_path / "scorecard.json"
    assert "sum(weight*score)/sum(weight)" in str(error)


def test_stated_reward_must_be_a_number(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", card({"name": "a", "score": 0.5}, reward="0.5"))
    reward_error(tmp_path, r"top-level 'reward' must be a number, got the string '0\.5'")


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ([], r"scorecard\.json must hold a JSON object, got a list"),
        ({}, r"'subtasks' must be a non-empty list, got no 'subtasks' key"),
        ({"subtasks": []}, r"'subtasks' must be a non-empty list, got an empty list"),
        ({"subtasks": {"a": 1}}, r"'subtasks' must be a non-empty list, got an object"),
        ({"subtasks": None}, r"'subtasks' must be a non-empty list, got null"),
        ({"subtask": []}, r"unknown top-level key 'subtask'.*did you mean 'subtasks'"),
        (card({"name": "a", "score": 1}, total=1), r"unknown top-level key 'total'"),
        ({"subtasks": [["a", 1]]}, r"subtasks\[0\] must be an object, got a list"),
        (card({"score": 1}), r"subtasks\[0\] needs a non-empty string 'name', got missing"),
        (card({"name": "", "score": 1}), r"subtasks\[0\] needs a non-empty string 'name'"),
        (card({"name": 3, "score": 1}), r"needs a non-empty string 'name', got 3"),
        (card({"name": "a"}), r"subtasks\[0\] \('a'\) has no 'score'"),
        (
            card({"name": "a", "score": 1}, {"name": "b", "scor": 1}),
            r"subtasks\[1\] \('b'\) has unknown key 'scor'.*did you mean 'score'",
        ),
        (
            card({"name": "a", "score": 1, "weigth": 2}),
            r"unknown key 'weigth'.*did you mean 'weight'",
        ),
        (card({"name": "a", "score": "1"}), r"'score' must be a number, got the string '1'"),
        (card({"name": "a", "score": True}), r"'score' must be a number, got a boolean"),
        (card({"name": "a", "score": None}), r"'score' must be a number, got null"),
        (card({"name": "a", "score": [1]}), r"'score' must be a number, got a list"),
        (card({"name": "a", "score": 1.5}), r"\('a'\) 'score' is 1\.5, outside \[0, 1\]"),
        (card({"name": "a", "score": -0.1}), r"'score' is -0\.1, outside \[0, 1\]"),
        (card({"name": "a", "score": 10**400}), r"'score' is not finite"),
        (card({"name": "a", "score": 1, "weight": 0}), r"'weight' must be finite and > 0, got 0"),
        (card({"name": "a", "score": 1, "weight": -2}), r"'weight' must be finite and > 0"),
        (card({"name": "a", "score": 1, "weight": "2"}), r"'weight' must be a number"),
        (card({"name": "a", "score": 1, "weight": False}), r"'weight' must be a number"),
        (card({"name": "a", "score": 1, "weight": 10**400}), r"'weight' must be finite and > 0"),
        (
            card(
                {"name": "a", "score": 1, "weight": 1e308},
                {"name": "b", "score": 1, "weight": 1e308},
            ),
            r"weights are too large to add up",
        ),
        (
            card({"name": "a", "score": 1, "visibility": "Public"}),
            r"'visibility' must be 'public' or 'hidden', got the string 'Public'",
        ),
        (
            card({"name": "a", "score": 1, "visibility": None}),
            r"'visibility' must be 'public' or 'hidden', got null",
        ),
        (
            card({"name": "a", "score": 1, "message": 5}),
            r"'message' must be a string or null, got 5",
        ),
        (
            card({"name": "a", "score": 1}, {"name": "a", "score": 0}),
            r"subtask name 'a' is used more than once",
        ),
    ],
)
def test_scorecard_json_is_strict(tmp_path: Path, content: object, match: str) -> None:
    write(tmp_path, "scorecard.json", content)
    error = reward_error(tmp_path, match)
    assert error.path == tmp_path / "scorecard.json"
    assert str(error).startswith(f"{tmp_path / 'scorecard.json'}: ")
    assert error.fix


def test_message_null_is_allowed(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", card({"name": "a", "score": 1, "message": None}))
    assert read_scorecard(tmp_path).subtasks[0].message is None


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_literals_are_refused(tmp_path: Path, literal: str) -> None:
    write(tmp_path, "scorecard.json", f'{{"subtasks": [{{"name": "a", "score": {literal}}}]}}')
    reward_error(tmp_path, f"{literal} is not a valid reward value")


def test_duplicate_json_keys_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", '{"subtasks": [{"name": "a", "score": 0, "score": 1}]}')
    reward_error(tmp_path, "key 'score' appears twice in one object")


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", '{"subtasks": [\n  {"name": "a", "score": 1,}\n]}')
    reward_error(tmp_path, r"not valid JSON: Expecting property name .* at line 2 column")


def test_truncated_json(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", '{"subtasks": [{"name": "a", "sco')
    reward_error(tmp_path, "not valid JSON")


def test_deeply_nested_json(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", "[" * 100_000 + "]" * 100_000)
    reward_error(tmp_path, "nests too deeply")


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", b'\xef\xbb\xbf{"subtasks": [{"name": "a", "score": 1}]}')
    assert read_scorecard(tmp_path).reward == 1.0


def test_non_utf8_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "reward.txt", b"0.5\xff")
    reward_error(tmp_path, r"not UTF-8 text \(byte 3\)")


# -- reward.json -------------------------------------------------------------------------------


def test_reward_json_reward_key_and_values(tmp_path: Path) -> None:
    write(tmp_path, "reward.json", {"reward": 0.75, "tests_passed": 9, "tests_total": 12})
    result = read_scorecard(tmp_path)
    assert result.reward == 0.75
    assert result.source == "reward.json"
    assert result.subtasks == ()
    assert result.values == {"reward": 0.75, "tests_passed": 9.0, "tests_total": 12.0}
    assert all(type(v) is float for v in result.values.values())


def test_reward_json_single_key_is_the_reward(tmp_path: Path) -> None:
    write(tmp_path, "reward.json", {"accuracy": 1})
    result = read_scorecard(tmp_path)
    assert result.reward == 1.0
    assert result.values == {"accuracy": 1.0}


def test_reward_json_only_reward_is_range_checked(tmp_path: Path) -> None:
    write(tmp_path, "reward.json", {"reward": 0.0, "seconds": 3600})
    assert read_scorecard(tmp_path).reward == 0.0


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (
            {"a": 0.5, "b": 1},
            r"no 'reward' key and more than one value.*keys: 'a', 'b'",
        ),
        ({}, "reward.json holds an empty object"),
        ([0.5], r"must hold a flat JSON object of numbers, got a list"),
        (0.5, r"must hold a flat JSON object of numbers, got 0\.5"),
        ({"reward": True}, r"value of 'reward' must be a number, got a boolean"),
        ({"reward": "0.5"}, r"value of 'reward' must be a number, got the string '0\.5'"),
        ({"reward": None}, r"value of 'reward' must be a number, got null"),
        ({"reward": 1, "detail": {"x": 1}}, r"value of 'detail' must be a number, got an object"),
        ({"reward": 1, "list": [1, 2]}, r"value of 'list' must be a number, got a list"),
        ({"reward": 1.01}, r"the reward \('reward'\) is 1\.01, outside \[0, 1\]"),
        ({"score": -1}, r"the reward \('score'\) is -1\.0, outside \[0, 1\]"),
        ({"reward": 0.5, "big": 10**400}, r"value of 'big' is not finite"),
    ],
)
def test_reward_json_is_strict(tmp_path: Path, content: object, match: str) -> None:
    write(tmp_path, "reward.json", content)
    error = reward_error(tmp_path, match)
    assert error.path == tmp_path / "reward.json"


def test_reward_json_nan_literal(tmp_path: Path) -> None:
    write(tmp_path, "reward.json", '{"reward": NaN}')
    reward_error(tmp_path, "NaN is not a valid reward value")


# -- reward.txt --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1.0),
        ("0", 0.0),
        ("0.5\n", 0.5),
        ("  \n\t0.25  \n\n", 0.25),
        (".5", 0.5),
        ("1.", 1.0),
        ("+0.5", 0.5),
        ("5e-1", 0.5),
        ("1E0", 1.0),
        ("-0", 0.0),
    ],
)
def test_reward_txt_numbers(tmp_path: Path, text: str, expected: float) -> None:
    write(tmp_path, "reward.txt", text)
    result = read_scorecard(tmp_path)
    assert result.reward == expected
    assert result.source == "reward.txt"
    assert result.subtasks == ()


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "the reward file is empty"),
        (" \n\t\n", "the reward file is empty"),
        ("abc", r"reward\.txt must hold one number, got 'abc'"),
        ("0.5 0.7", r"must hold one number, got '0\.5 0\.7'"),
        ("0.5\n0.7", r"must hold one number"),
        ("1_0", r"must hold one number, got '1_0'"),
        ("0x1", r"must hold one number"),
        ("nan", r"must hold one number, got 'nan'"),
        ("inf", r"must hold one number, got 'inf'"),
        ("true", r"must hold one number, got 'true'"),
        ("reward: 1", r"must hold one number"),
        ("1.5", r"the reward is 1\.5, outside \[0, 1\]"),
        ("-0.5", r"the reward is -0\.5, outside \[0, 1\]"),
        ("1e999", r"the reward is not finite \(inf\)"),
        ("x" * 500, r"must hold one number, got 'x{40}\.\.\.'"),
    ],
)
def test_reward_txt_is_strict(tmp_path: Path, text: str, match: str) -> None:
    write(tmp_path, "reward.txt", text)
    error = reward_error(tmp_path, match)
    assert error.path == tmp_path / "reward.txt"


def test_zero_reward_is_a_reward_not_an_error(tmp_path: Path) -> None:
    write(tmp_path, "reward.txt", "0\n")
    assert read_scorecard(tmp_path).reward == 0.0


# -- the directory -----------------------------------------------------------------------------


def test_missing_reward_is_an_error_not_zero(tmp_path: Path) -> None:
    (tmp_path / "pytest.log").write_text("3 passed", encoding="utf-8")
    error = reward_error(
        tmp_path, r"no reward file was written \(looked for scorecard\.json, reward\.json"
    )
    assert isinstance(error, VerifierError)
    assert error.path == tmp_path
    assert "not a zero" in str(error)


def test_missing_directory(tmp_path: Path) -> None:
    reward_error(tmp_path / "nope", "the verifier output directory does not exist")


def test_reward_file_that_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "reward.txt").mkdir()
    reward_error(tmp_path, "the reward file is not a regular file")


def test_symlinked_reward_file_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("1", encoding="utf-8")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "reward.txt").symlink_to(outside)
    reward_error(tmp_path / "out", "the reward file is a symbolic link")


def test_dangling_symlink_is_reported(tmp_path: Path) -> None:
    (tmp_path / "reward.txt").symlink_to(tmp_path / "missing")
    reward_error(tmp_path, "the reward file is a symbolic link")


def test_file_size_is_capped(tmp_path: Path) -> None:
    write(tmp_path, "reward.txt", "0" * (MAX_REWARD_FILE_BYTES + 1))
    reward_error(tmp_path, f"larger than {MAX_REWARD_FILE_BYTES} bytes")


def test_file_at_the_cap_is_read(tmp_path: Path) -> None:
    write(tmp_path, "reward.txt", "1" + " " * (MAX_REWARD_FILE_BYTES - 1))
    assert read_scorecard(tmp_path).reward == 1.0


def test_reward_path_that_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "reward.txt").mkdir()
    reward_error(tmp_path, "the reward file is not a regular file")


# -- precedence and agreement ------------------------------------------------------------------


def test_scorecard_json_wins_over_harbor_files(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", card({"name": "a", "score": 0.5}))
    write(tmp_path, "reward.json", {"reward": 0.5, "extra": 7})
    write(tmp_path, "reward.txt", "0.5000001")
    result = read_scorecard(tmp_path)
    assert result.source == "scorecard.json"
    assert result.reward == 0.5
    assert [s.name for s in result.subtasks] == ["a"]
    assert result.values == {"reward": 0.5, "extra": 7.0}


def test_reward_json_wins_over_reward_txt(tmp_path: Path) -> None:
    write(tmp_path, "reward.json", {"reward": 0.25})
    write(tmp_path, "reward.txt", "0.25")
    result = read_scorecard(tmp_path)
    assert result.source == "reward.json"
    assert result.values == {"reward": 0.25}


@pytest.mark.parametrize(
    ("files", "match"),
    [
        (
            {"scorecard.json": card({"name": "a", "score": 1}), "reward.txt": "0"},
            r"scorecard\.json gives reward 1\.0 but reward\.txt gives 0\.0",
        ),
        (
            {"scorecard.json": card({"name": "a", "score": 0.5}), "reward.json": {"reward": 0.6}},
            r"scorecard\.json gives reward 0\.5 but reward\.json gives 0\.6",
        ),
        (
            {"reward.json": {"reward": 0.5}, "reward.txt": "0.500002"},
            r"reward\.json gives reward 0\.5 but reward\.txt gives 0\.500002",
        ),
    ],
)
def test_disagreeing_files_are_an_error(
    tmp_path: Path, files: dict[str, object], match: str
) -> None:
    for name, content in files.items():
        write(tmp_path, name, content)
    error = reward_error(tmp_path, match)
    assert error.path == tmp_path
    assert "same value" in str(error)


def test_a_broken_lower_precedence_file_is_still_an_error(tmp_path: Path) -> None:
    write(tmp_path, "scorecard.json", card({"name": "a", "score": 1}))
    write(tmp_path, "reward.txt", "")
    error = reward_error(tmp_path, "the reward file is empty")
    assert error.path == tmp_path / "reward.txt"


# -- Scorecard values --------------------------------------------------------------------------


def test_from_subtasks() -> None:
    result = Scorecard.from_subtasks([Subtask("a", 1.0, 3.0), Subtask("b", 0.0)])
    assert result.reward == 0.75
    assert result.source == "scorecard.json"
    with pytest.raises(ValueError, match="at least one subtask"):
        Scorecard.from_subtasks([])
    with pytest.raises(ValueError, match="repeated: a"):
        Scorecard.from_subtasks([Subtask("a", 1.0), Subtask("a", 0.0)])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"score": 1.1}, r"score must be a number in \[0, 1\], got 1\.1"),
        ({"score": math.nan}, r"score must be a number in \[0, 1\], got nan"),
        ({"score": 1.0, "weight": 0.0}, r"weight must be a finite number > 0, got 0\.0"),
        ({"score": 1.0, "weight": math.inf}, r"weight must be a finite number > 0, got inf"),
    ],
)
def test_subtask_validates(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Subtask("a", **kwargs)


def test_scorecard_validates_reward() -> None:
    with pytest.raises(ValueError, match=r"reward must be a number in \[0, 1\], got -1"):
        Scorecard(reward=-1)


# -- declared subtasks -------------------------------------------------------------------------

DECLARED = (
    SubtaskSpec("build", 1.0, Visibility.PUBLIC),
    SubtaskSpec("accuracy", 3.0, Visibility.HIDDEN),
)


def scored(*subtasks: Subtask) -> Scorecard:
    return Scorecard.from_subtasks(subtasks)


def test_declared_subtasks_match_in_any_order(tmp_path: Path) -> None:
    check_declared(
        scored(Subtask("accuracy", 0.2, 3.0), Subtask("build", 1.0, 1, Visibility.PUBLIC)),
        DECLARED,
        path=tmp_path,
    )


def test_nothing_declared_accepts_anything(tmp_path: Path) -> None:
    check_declared(Scorecard(reward=0.5, source="reward.txt"), (), path=tmp_path)


@pytest.mark.parametrize(
    ("scorecard", "match"),
    [
        (
            scored(Subtask("build", 1.0, 1.0, Visibility.PUBLIC)),
            r"does not match the task's \[\[verifier\.subtasks\]\]: missing subtask\(s\): accuracy",
        ),
        (
            scored(
                Subtask("build", 1.0, 1.0, Visibility.PUBLIC),
                Subtask("accuracy", 1.0, 3.0),
                Subtask("bonus", 1.0),
            ),
            r"undeclared subtask\(s\): bonus",
        ),
        (
            scored(Subtask("build", 1.0, 2.0, Visibility.PUBLIC), Subtask("accuracy", 1.0, 3.0)),
            r"'build' has weight 2, declared 1",
        ),
        (
            scored(Subtask("build", 1.0, 1.0, Visibility.HIDDEN), Subtask("accuracy", 1.0, 3.0)),
            r"'build' is hidden, declared public",
        ),
        (
            scored(Subtask("Build", 1.0, 1.0, Visibility.PUBLIC), Subtask("accuracy", 1.0, 3.0)),
            r"missing subtask\(s\): build; undeclared subtask\(s\): Build",
        ),
        (
            Scorecard(reward=1.0, source="reward.txt"),
            r"the task declares 2 subtask\(s\) but the verifier wrote reward\.txt, which has none",
        ),
    ],
)
def test_declared_subtasks_must_match(tmp_path: Path, scorecard: Scorecard, match: str) -> None:
    with pytest.raises(RewardFileError, match=match) as info:
        check_declared(scorecard, DECLARED, path=tmp_path / "scorecard.json")
    assert info.value.path == tmp_path / "scorecard.json"


def test_every_difference_is_listed(tmp_path: Path) -> None:
    scorecard = scored(Subtask("build", 1.0, 5.0), Subtask("other", 1.0))
    with pytest.raises(RewardFileError) as info:
        check_declared(scorecard, DECLARED, path=tmp_path)
    text = str(info.value)
    for part in (
        "missing subtask(s): accuracy",
        "undeclared subtask(s): other",
        "'build' has weight 5, declared 1",
        "'build' is hidden, declared public",
    ):
        assert part in text
