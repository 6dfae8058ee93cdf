"""The stdlib-only scorecard helper that task tests import inside the verifier sandbox."""

from __future__ import annotations

import ast
import json
import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lhtb.errors import RewardFileError
from lhtb.task import Visibility
from lhtb.verify import Subtask, read_scorecard
from lhtb.verify.kit import KIT_DESTINATION, KIT_PATH
from lhtb.verify.kit.lhtb_scorecard import DEFAULT_SEED, Scorecard
from lhtb.verify.kit.lhtb_scorecard import seed as kit_seed

# -- running the kit for real ------------------------------------------------------------------


def run_script(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """Run ``body`` as a test script beside a copy of the kit, as the verifier would.

    ``-S -E`` leaves out site-packages and the environment, so only the
    standard library (and the script's own directory) can be imported.
    """
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(KIT_PATH, tests / Path(KIT_DESTINATION).name)
    script = tests / "score.py"
    script.write_text(textwrap.dedent(body), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-S", "-E", str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_kit_file_is_shipped() -> None:
    assert KIT_PATH.is_file()
    assert KIT_PATH.name == "lhtb_scorecard.py"
    assert KIT_DESTINATION == "/tests/lhtb_scorecard.py"


def test_script_writes_a_scorecard_read_scorecard_accepts(tmp_path: Path) -> None:
    out = tmp_path / "logs" / "verifier" / "scorecard.json"
    result = run_script(
        tmp_path,
        f"""
        import sys
        for forbidden in ("lhtb", "attrs"):
            try:
                __import__(forbidden)
            except ImportError:
                pass
            else:
                sys.exit(forbidden + " is importable: the run does not prove stdlib-only")

        from lhtb_scorecard import Scorecard

        def crashes():
            raise RuntimeError("output.csv has no header")

        card = Scorecard()
        card.check("compiles", True, visibility="public")
        card.check("no_warnings", False, weight=0.5, visibility="public", message="2 warnings")
        card.tolerance("rmse", 0.15, target=0.0, tol=0.1, zero_at=0.2, weight=2)
        card.run("schema", crashes, weight=1.5)
        card.run("rows", lambda: 0.25)
        reward = card.write({str(out)!r})
        print("returned", repr(reward))
        """,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""

    scorecard = read_scorecard(out.parent)
    assert scorecard.source == "scorecard.json"
    rmse = scorecard.subtasks[2].score
    assert rmse == pytest.approx(0.5)
    assert scorecard.subtasks == (
        Subtask("compiles", 1.0, 1.0, Visibility.PUBLIC),
        Subtask("no_warnings", 0.0, 0.5, Visibility.PUBLIC, "2 warnings"),
        Subtask("rmse", rmse, 2.0, Visibility.HIDDEN),
        Subtask("schema", 0.0, 1.5, Visibility.HIDDEN, "RuntimeError: output.csv has no header"),
        Subtask("rows", 0.25, 1.0, Visibility.HIDDEN),
    )
    expected = (1.0 + 0.0 + 2 * 0.5 + 0.0 + 0.25) / (1 + 0.5 + 2 + 1.5 + 1)
    assert scorecard.reward == pytest.approx(expected)
    assert scorecard.public_reward == pytest.approx(1 / 1.5)

    assert f"returned {scorecard.reward!r}" in result.stdout
    assert "lhtb scorecard: 5 subtask(s)" in result.stdout
    assert "(RuntimeError: output.csv has no header)" in result.stdout
    assert f"reward {expected:.4f}" in result.stdout
    assert [p.name for p in out.parent.iterdir()] == ["scorecard.json"]


def test_reward_txt_for_harbor_agrees_with_the_scorecard(tmp_path: Path) -> None:
    out = tmp_path / "verifier" / "scorecard.json"
    result = run_script(
        tmp_path,
        f"""
        from lhtb_scorecard import Scorecard
        card = Scorecard()
        for i, score in enumerate([1, 0.3, 0.7]):
            card.add("part%d" % i, score, weight=0.1 * (i + 1))
        card.write({str(out)!r}, reward_txt=True)
        """,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.parent.iterdir()) == ["reward.txt", "scorecard.json"]
    scorecard = read_scorecard(out.parent)
    assert scorecard.source == "scorecard.json"
    assert float((out.parent / "reward.txt").read_text(encoding="utf-8")) == scorecard.reward


def test_a_bad_score_fails_the_script_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "verifier" / "scorecard.json"
    result = run_script(
        tmp_path,
        f"""
        from lhtb_scorecard import Scorecard
        card = Scorecard()
        card.add("ok", 1)
        card.add("too_high", 1.2)
        card.write({str(out)!r})
        """,
    )
    assert result.returncode == 1
    assert "ValueError: score of 'too_high' must be in [0, 1], got 1.2" in result.stderr
    assert not out.parent.exists()
    with pytest.raises(RewardFileError, match="verifier output directory does not exist"):
        read_scorecard(out.parent)


def test_kit_is_python38_syntax_and_stdlib_only() -> None:
    source = KIT_PATH.read_text(encoding="utf-8")
    tree = ast.parse(source, feature_version=(3, 8))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported, "the kit imports nothing?"
    assert imported - {"__future__"} <= sys.stdlib_module_names
    assert "from __future__ import annotations" in source  # new-style hints stay unevaluated


# -- the API in process ------------------------------------------------------------------------


def test_write_is_atomic_and_replaces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scorecard.json"
    out.write_text("old", encoding="utf-8")
    card = Scorecard()
    card.add("a", 0.5)
    assert card.write(out) == 0.5
    assert json.loads(out.read_text(encoding="utf-8")) == {
        "subtasks": [{"name": "a", "score": 0.5, "weight": 1.0, "visibility": "hidden"}],
        "reward": 0.5,
    }
    assert [p.name for p in tmp_path.iterdir()] == ["scorecard.json"]
    assert "reward 0.5000" in capsys.readouterr().out


def test_write_without_subtasks_keeps_the_old_file(tmp_path: Path) -> None:
    out = tmp_path / "scorecard.json"
    out.write_text("old", encoding="utf-8")
    with pytest.raises(ValueError, match="no subtasks recorded yet"):
        Scorecard().write(out)
    assert out.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["scorecard.json"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3.0, 1.0),  # on target
        (3.1, 1.0),  # at the edge of tol
        (2.9, 1.0),  # either side
        (3.3, 0.5),  # halfway between tol and zero_at
        (2.7, 0.5),
        (3.5, 0.0),  # at zero_at
        (10.0, 0.0),  # beyond
        (math.inf, 0.0),
        (None, 0.0),
        (math.nan, 0.0),
    ],
)
def test_tolerance_scores(value: float | None, expected: float) -> None:
    card = Scorecard()
    score = card.tolerance("x", value, target=3.0, tol=0.1, zero_at=0.5)
    assert score == pytest.approx(expected, abs=1e-9)
    assert card.to_dict()["subtasks"][0]["score"] == score


def test_tolerance_zero_tol_and_messages() -> None:
    card = Scorecard()
    assert card.tolerance("exact", 2, target=2, tol=0, zero_at=1) == 1.0
    card.tolerance("missing", None, target=2, tol=0, zero_at=1)
    card.tolerance("nan", math.nan, target=2, tol=0, zero_at=1, message="diverged")
    messages = {e["name"]: e.get("message") for e in card.to_dict()["subtasks"]}
    assert messages == {"exact": None, "missing": "no value", "nan": "diverged"}


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"tol": 0.5, "zero_at": 0.5}, ValueError, r"needs 0 <= tol < zero_at"),
        ({"tol": 0.6, "zero_at": 0.5}, ValueError, r"needs 0 <= tol < zero_at"),
        ({"tol": -0.1, "zero_at": 0.5}, ValueError, r"needs 0 <= tol < zero_at"),
        ({"tol": 0.1, "zero_at": math.inf}, ValueError, r"must be finite"),
        ({"tol": 0.1, "zero_at": 0.5, "target": math.nan}, ValueError, r"must be finite"),
        ({"tol": "0.1", "zero_at": 0.5}, TypeError, r"tol of 'x' must be a number"),
        ({"tol": 0.1, "zero_at": 0.5, "value": "3"}, TypeError, r"value of 'x' must be a number"),
    ],
)
def test_tolerance_validates(kwargs: dict[str, object], error: type[Exception], match: str) -> None:
    arguments: dict[str, object] = {"value": 1.0, "target": 1.0, **kwargs}
    value = arguments.pop("value")
    card = Scorecard()
    with pytest.raises(error, match=match):
        card.tolerance("x", value, **arguments)  # type: ignore[arg-type]
    assert len(card) == 0


@pytest.mark.parametrize(
    ("result", "expected"),
    [(None, 1.0), (True, 1.0), (False, 0.0), (0.3, 0.3), (1, 1.0), (0, 0.0)],
)
def test_run_records_the_result(result: object, expected: float) -> None:
    card = Scorecard()
    assert card.run("c", lambda: result) == expected
    assert card.reward == expected


def test_run_turns_a_crash_into_zero_and_keeps_going() -> None:
    card = Scorecard()

    def bad_assert() -> None:
        raise AssertionError

    def missing() -> None:
        Path("/nonexistent/lhtb/output.csv").read_text(encoding="utf-8")

    assert card.run("assert", bad_assert, weight=2) == 0.0
    assert card.run("missing", missing) == 0.0
    assert card.run("fine", lambda: True) == 1.0
    entries = card.to_dict()["subtasks"]
    assert entries[0]["message"] == "AssertionError"
    assert entries[1]["message"].startswith("FileNotFoundError: [Errno 2]")
    assert card.reward == pytest.approx(1 / 4)


def test_run_does_not_swallow_exit_or_interrupt() -> None:
    card = Scorecard()
    with pytest.raises(SystemExit):
        card.run("exit", lambda: sys.exit(3))
    assert len(card) == 0


@pytest.mark.parametrize(
    ("result", "error", "match"),
    [
        (1.5, ValueError, r"score of 'c' must be in \[0, 1\], got 1\.5"),
        ("yes", TypeError, r"check 'c' returned 'yes'; return None, a bool or a score"),
    ],
)
def test_run_refuses_bad_results(result: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        Scorecard().run("c", lambda: result)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("", 1), {}, ValueError, "subtask name must be a non-empty string"),
        ((" ", 1), {}, ValueError, "subtask name must be a non-empty string"),
        ((None, 1), {}, ValueError, "subtask name must be a non-empty string"),
        (("a", 1.0000001), {}, ValueError, r"score of 'a' must be in \[0, 1\]"),
        (("a", -0.0001), {}, ValueError, r"score of 'a' must be in \[0, 1\]"),
        (("a", math.nan), {}, ValueError, r"score of 'a' must be in \[0, 1\], got nan"),
        (("a", True), {}, TypeError, r"score of 'a' must be a number, got True"),
        (("a", "1"), {}, TypeError, r"score of 'a' must be a number, got '1'"),
        (("a", 1), {"weight": 0}, ValueError, r"weight of 'a' must be finite and > 0, got 0"),
        (("a", 1), {"weight": -1}, ValueError, r"weight of 'a' must be finite and > 0"),
        (("a", 1), {"weight": math.inf}, ValueError, r"weight of 'a' must be finite and > 0"),
        (("a", 1), {"visibility": "Public"}, ValueError, r"must be 'public' or 'hidden'"),
        (("a", 1), {"message": 5}, TypeError, r"message of 'a' must be a string or None"),
    ],
)
def test_add_validates(
    args: tuple[object, object], kwargs: dict[str, object], error: type[Exception], match: str
) -> None:
    card = Scorecard()
    with pytest.raises(error, match=match):
        card.add(*args, **kwargs)  # type: ignore[arg-type]
    assert len(card) == 0


def test_add_refuses_a_repeated_name() -> None:
    card = Scorecard()
    card.add("a", 1)
    with pytest.raises(ValueError, match="subtask 'a' was already recorded"):
        card.check("a", True)


def test_check_needs_a_bool() -> None:
    with pytest.raises(TypeError, match=r"check 'a' needs a bool, got 1"):
        Scorecard().check("a", 1)  # type: ignore[arg-type]


def test_kit_reward_equals_reader_reward_for_awkward_weights(tmp_path: Path) -> None:
    card = Scorecard()
    weights = [0.1, 0.2, 0.3, 1e-9, 7.0, 1 / 3]
    scores = [1.0, 0.1, 0.7, 0.0, 0.123456789, 1 / 7]
    for i, (weight, score) in enumerate(zip(weights, scores, strict=True)):
        card.add(f"s{i}", score, weight=weight)
    card.write(tmp_path / "scorecard.json")
    assert read_scorecard(tmp_path).reward == card.reward


# -- the grading seed ------------------------------------------------------------------------------


def test_seed_is_the_harness_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LHTB_SEED", "123456")
    assert kit_seed() == 123456


def test_seed_without_the_harness_is_the_documented_default_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("LHTB_SEED", raising=False)
    assert [kit_seed(), kit_seed()] == [DEFAULT_SEED, DEFAULT_SEED]
    assert f"using the fixed default seed {DEFAULT_SEED}" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-3", "1.5", "abc", "²"])
def test_seed_refuses_a_malformed_value(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("LHTB_SEED", value)
    with pytest.raises(ValueError, match="LHTB_SEED must be a non-negative integer"):
        kit_seed()
