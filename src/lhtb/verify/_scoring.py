"""Scoring rules: turn a verifier's output directory into a :class:`Scorecard`.

One authoritative reader (:func:`read_scorecard`) for the three reward files,
in order of precedence:

1. ``scorecard.json`` (lhtb): weighted subtasks, R = sum(w*s) / sum(w);
2. ``reward.json`` (Harbor): a flat object of numbers, ``reward`` is R;
3. ``reward.txt`` (Harbor): one number.

Missing, empty, malformed, NaN or out-of-range values, and two files that
disagree, raise :class:`~lhtb.errors.RewardFileError`: a verifier error, never
a silent zero.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from lhtb._util.display import Displayable, View, number
from lhtb.errors import RewardFileError
from lhtb.task._model import SubtaskSpec, Visibility

__all__ = [
    "MAX_REWARD_FILE_BYTES",
    "REWARD_FILES",
    "REWARD_TOLERANCE",
    "Scorecard",
    "Subtask",
    "check_declared",
    "read_scorecard",
]

#: The reward files, highest precedence first.
REWARD_FILES = ("scorecard.json", "reward.json", "reward.txt")
#: Larger reward files are refused rather than read.
MAX_REWARD_FILE_BYTES = 10 * 1024 * 1024
#: How far two rewards for the same pass may differ and still agree.
REWARD_TOLERANCE = 1e-6

_SUBTASK_KEYS = ("name", "score", "weight", "visibility", "message")
_SCORECARD_KEYS = ("subtasks", "reward")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FIX_SCORECARD = (
    'Write {"subtasks": [{"name": ..., "score": 0..1, "weight": >0, "visibility": '
    '"public"|"hidden", "message": ...}]}, e.g. with /tests/lhtb_scorecard.py'
)


def _unit_interval(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{attribute.name} must be a number in [0, 1], got {value!r}")


def _positive(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{attribute.name} must be a finite number > 0, got {value!r}")


@attrs.frozen
class Subtask:
    """One weighted, scored part of a task."""

    name: str
    score: float = attrs.field(validator=_unit_interval)
    weight: float = attrs.field(default=1.0, validator=_positive)
    visibility: Visibility = Visibility.HIDDEN
    message: str | None = None


SUBTASK_HEADERS = ("subtask", "score", "weight", "visibility", "message")
"""The columns of :func:`subtask_rows`."""


def subtask_rows(scorecard: Scorecard | None) -> tuple[tuple[str, ...], ...]:
    """One display row per subtask: name, score, weight, visibility, message."""
    if scorecard is None:
        return ()
    return tuple(
        (s.name, number(s.score), f"{s.weight:g}", str(s.visibility), s.message or "")
        for s in scorecard.subtasks
    )


@attrs.frozen(repr=False)
class Scorecard(Displayable):
    """A verifier pass's result: the reward and, when available, its subtasks.

    ``source`` names the reward file it was read from; ``values`` keeps every
    number of a Harbor ``reward.json``.
    """

    reward: float = attrs.field(validator=_unit_interval)
    subtasks: tuple[Subtask, ...] = ()
    source: str = "scorecard.json"
    values: Mapping[str, float] = attrs.field(factory=dict)

    @classmethod
    def from_subtasks(
        cls, subtasks: Iterable[Subtask], *, source: str = "scorecard.json"
    ) -> Scorecard:
        """Build a scorecard whose reward is the weighted mean of ``subtasks``.

        Raises:
            ValueError: there are no subtasks, or two share a name.
        """
        chosen = tuple(subtasks)
        if not chosen:
            raise ValueError("a scorecard needs at least one subtask")
        names = [s.name for s in chosen]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"subtask names must be unique; repeated: {', '.join(duplicates)}")
        reward = _weighted_mean(chosen)
        if reward is None:
            raise ValueError("the subtask weights are too large to add up")
        return cls(reward=reward, subtasks=chosen, source=source)

    @property
    def public_reward(self) -> float | None:
        """Weighted score over public subtasks only (None if there are none)."""
        return _weighted_mean(s for s in self.subtasks if s.visibility is Visibility.PUBLIC)

    @property
    def hidden_reward(self) -> float | None:
        """Weighted score over hidden subtasks only (None if there are none)."""
        return _weighted_mean(s for s in self.subtasks if s.visibility is Visibility.HIDDEN)

    def _view(self) -> View:
        """The reward and its subtasks."""
        return View(
            f"Scorecard: reward {number(self.reward)}",
            tuple((k, number(v)) for k, v in self.values.items()),
            SUBTASK_HEADERS,
            subtask_rows(self),
        )

    def __repr__(self) -> str:
        return f"Scorecard(reward={self.reward!r}, subtasks={len(self.subtasks)})"


def _weighted_mean(subtasks: Iterable[Subtask]) -> float | None:
    chosen = list(subtasks)
    try:
        total = math.fsum(s.weight for s in chosen)
        # fsum is correctly rounded, so sum(w*s) <= sum(w) holds and R stays in [0, 1].
        weighted = math.fsum(s.weight * s.score for s in chosen)
    except OverflowError:
        return None
    if not chosen or not math.isfinite(total):
        return None
    return weighted / total


# -- reading -----------------------------------------------------------------------------------


def read_scorecard(directory: Path) -> Scorecard:
    """Read the verifier output in ``directory`` by the precedence rules above.

    Every reward file present must be valid, and all of them must agree on R
    within :data:`REWARD_TOLERANCE`; the scorecard comes from the one with the
    highest precedence. The numbers of a ``reward.json`` are kept in
    :attr:`Scorecard.values` whichever file is read first.

    Raises:
        RewardFileError: no reward file, or one that is empty, malformed,
            non-numeric, NaN/infinite, out of [0, 1] or too large, or two files
            whose rewards disagree. This is a verifier error, not a zero reward.
    """
    if not directory.is_dir():
        raise RewardFileError(
            "the verifier output directory does not exist",
            path=directory,
            fix="Check that the verifier pass ran and its log directory was copied out",
        )
    parsers = {
        "scorecard.json": _parse_scorecard_json,
        "reward.json": _parse_reward_json,
        "reward.txt": _parse_reward_txt,
    }
    cards = [
        parsers[name](directory / name, _read_text(directory / name))
        for name in REWARD_FILES
        if (directory / name).exists() or (directory / name).is_symlink()
    ]
    if not cards:
        raise RewardFileError(
            "no reward file was written (looked for " + ", ".join(REWARD_FILES) + ")",
            path=directory,
            fix="Make the tests write /logs/verifier/scorecard.json or reward.txt on every "
            "path, including failures; a missing reward is a verifier error, not a zero",
        )
    first = cards[0]
    for other in cards[1:]:
        if abs(other.reward - first.reward) > REWARD_TOLERANCE:
            raise RewardFileError(
                f"{first.source} gives reward {first.reward!r} but {other.source} gives "
                f"{other.reward!r}",
                path=directory,
                fix="Write the reward once, or make every reward file carry the same value",
            )
    values = next((c.values for c in cards if c.source == "reward.json"), first.values)
    return attrs.evolve(first, values=values)


def check_declared(scorecard: Scorecard, declared: Sequence[SubtaskSpec], *, path: Path) -> None:
    """Check a scorecard against the subtasks a task declares in ``[[verifier.subtasks]]``.

    Names, weights and visibilities must match exactly (order does not
    matter). A task that declares no subtasks accepts any scorecard.

    Raises:
        RewardFileError: the scorecard differs from the declaration; the
            message lists every difference. ``path`` is reported as the place.
    """
    if not declared:
        return
    if not scorecard.subtasks:
        raise RewardFileError(
            f"the task declares {len(declared)} subtask(s) but the verifier wrote "
            f"{scorecard.source}, which has none",
            path=path,
            fix="Make the tests write scorecard.json with the declared subtasks",
        )
    wanted = {spec.name: spec for spec in declared}
    got = {sub.name: sub for sub in scorecard.subtasks}
    problems: list[str] = []
    missing = [name for name in wanted if name not in got]
    extra = [name for name in got if name not in wanted]
    if missing:
        problems.append("missing subtask(s): " + ", ".join(missing))
    if extra:
        problems.append("undeclared subtask(s): " + ", ".join(extra))
    for name, spec in wanted.items():
        sub = got.get(name)
        if sub is None:
            continue
        if not math.isclose(sub.weight, spec.weight, rel_tol=1e-9, abs_tol=0.0):
            problems.append(f"{name!r} has weight {sub.weight:g}, declared {spec.weight:g}")
        if sub.visibility is not spec.visibility:
            problems.append(f"{name!r} is {sub.visibility.value}, declared {spec.visibility.value}")
    if problems:
        raise RewardFileError(
            "the scorecard does not match the task's [[verifier.subtasks]]: " + "; ".join(problems),
            path=path,
            fix="Make the tests and task.toml agree on subtask names, weights and visibility",
        )


def _read_text(path: Path) -> str:
    if path.is_symlink():
        raise RewardFileError(
            "the reward file is a symbolic link, which is not read",
            path=path,
            fix="Write the reward file as a regular file",
        )
    if not path.is_file():
        raise RewardFileError(
            "the reward file is not a regular file",
            path=path,
            fix="Write the reward file as a regular file",
        )
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_REWARD_FILE_BYTES + 1)
    except OSError as exc:
        raise RewardFileError(
            f"the reward file cannot be read: {exc.strerror or exc}",
            path=path,
            fix="Check the file's permissions",
        ) from exc
    if len(raw) > MAX_REWARD_FILE_BYTES:
        raise RewardFileError(
            f"the reward file is larger than {MAX_REWARD_FILE_BYTES} bytes",
            path=path,
            fix="Keep reward files small; put long logs in other files",
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RewardFileError(
            f"the reward file is not UTF-8 text (byte {exc.start})",
            path=path,
            fix="Write the reward file as UTF-8 text",
        ) from exc
    if not text.strip():
        raise RewardFileError(
            "the reward file is empty",
            path=path,
            fix="Write the reward on every path of the tests, including failures",
        )
    return text


def _load_json(path: Path, text: str) -> Any:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise RewardFileError(
                    f"key {key!r} appears twice in one object",
                    path=path,
                    fix="Write each key once",
                )
            result[key] = value
        return result

    def no_constants(name: str) -> Any:
        raise RewardFileError(
            f"{name} is not a valid reward value",
            path=path,
            fix="Write finite numbers in [0, 1]",
        )

    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constants)
    except json.JSONDecodeError as exc:
        raise RewardFileError(
            f"the reward file is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            path=path,
            fix="Write the file with json.dump (or lhtb_scorecard.py)",
        ) from exc
    except RecursionError as exc:
        raise RewardFileError(
            "the reward file nests too deeply", path=path, fix=_FIX_SCORECARD
        ) from exc


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _as_float(value: object) -> float:
    """A JSON number as a float; integers too large for a float become infinity."""
    assert isinstance(value, int | float)
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def _reward_value(path: Path, value: object, what: str) -> float:
    """Check that ``value`` is a finite number in [0, 1] and return it as a float."""
    if not _is_number(value):
        raise RewardFileError(
            f"{what} must be a number, got {_describe(value)}",
            path=path,
            fix="Write a number in [0, 1]",
        )
    number = _as_float(value)
    if not math.isfinite(number):
        raise RewardFileError(
            f"{what} is not finite ({number!r})", path=path, fix="Write a number in [0, 1]"
        )
    if not 0.0 <= number <= 1.0:
        raise RewardFileError(
            f"{what} is {value!r}, outside [0, 1]",
            path=path,
            fix="Scale the reward to [0, 1]; it is never clamped",
        )
    return number


def _closest(key: str, valid: Sequence[str]) -> str:
    match = difflib.get_close_matches(key, valid, n=1)
    hint = f"did you mean {match[0]!r}? " if match else ""
    return hint + "valid keys: " + ", ".join(valid)


def _parse_scorecard_json(path: Path, text: str) -> Scorecard:
    data = _load_json(path, text)
    if not isinstance(data, dict):
        raise RewardFileError(
            f"scorecard.json must hold a JSON object, got {_describe(data)}",
            path=path,
            fix=_FIX_SCORECARD,
        )
    for key in data:
        if key not in _SCORECARD_KEYS:
            raise RewardFileError(
                f"unknown top-level key {key!r}",
                path=path,
                fix=_closest(key, _SCORECARD_KEYS),
            )
    entries = data.get("subtasks")
    if not isinstance(entries, list) or not entries:
        got = "an empty list" if entries == [] else _describe(entries)
        if "subtasks" not in data:
            got = "no 'subtasks' key"
        raise RewardFileError(
            f"'subtasks' must be a non-empty list, got {got}",
            path=path,
            fix="List at least one subtask with a name and a score",
        )
    subtasks = [_parse_subtask(path, index, entry) for index, entry in enumerate(entries)]
    seen: set[str] = set()
    for sub in subtasks:
        if sub.name in seen:
            raise RewardFileError(
                f"subtask name {sub.name!r} is used more than once",
                path=path,
                fix="Give every subtask a unique name",
            )
        seen.add(sub.name)
    try:
        card = Scorecard.from_subtasks(subtasks, source="scorecard.json")
    except ValueError as exc:
        raise RewardFileError(str(exc), path=path, fix="Use smaller weights") from exc
    if "reward" in data:
        stated = _reward_value(path, data["reward"], "the top-level 'reward'")
        if abs(stated - card.reward) > REWARD_TOLERANCE:
            raise RewardFileError(
                f"the top-level 'reward' {stated!r} differs from the weighted mean of "
                f"the subtasks, {card.reward!r}",
                path=path,
                fix="Drop 'reward' or compute it as sum(weight*score)/sum(weight)",
            )
    return card


def _parse_subtask(path: Path, index: int, entry: object) -> Subtask:
    where = f"subtasks[{index}]"
    if not isinstance(entry, dict):
        raise RewardFileError(
            f"{where} must be an object, got {_describe(entry)}", path=path, fix=_FIX_SCORECARD
        )
    name = entry.get("name")
    if isinstance(name, str) and name.strip():
        where = f"{where} ({name!r})"
    for key in entry:
        if key not in _SUBTASK_KEYS:
            raise RewardFileError(
                f"{where} has unknown key {key!r}", path=path, fix=_closest(key, _SUBTASK_KEYS)
            )
    if not isinstance(name, str) or not name.strip():
        got = "missing" if "name" not in entry else _describe(name)
        raise RewardFileError(
            f"{where} needs a non-empty string 'name', got {got}",
            path=path,
            fix="Name every subtask",
        )
    if "score" not in entry:
        raise RewardFileError(
            f"{where} has no 'score'", path=path, fix="Give every subtask a score in [0, 1]"
        )
    score = _reward_value(path, entry["score"], f"{where} 'score'")
    weight_value = entry.get("weight", 1.0)
    if not _is_number(weight_value):
        raise RewardFileError(
            f"{where} 'weight' must be a number, got {_describe(weight_value)}",
            path=path,
            fix="Give a weight > 0, or leave it out for 1",
        )
    weight = _as_float(weight_value)
    if not (math.isfinite(weight) and weight > 0):
        raise RewardFileError(
            f"{where} 'weight' must be finite and > 0, got {weight_value!r}",
            path=path,
            fix="Give a weight > 0, or leave it out for 1",
        )
    visibility = entry.get("visibility", Visibility.HIDDEN.value)
    if visibility not in {v.value for v in Visibility}:
        raise RewardFileError(
            f"{where} 'visibility' must be 'public' or 'hidden', got {_describe(visibility)}",
            path=path,
            fix="Use 'public' for subtasks the agent can check itself, else 'hidden'",
        )
    message = entry.get("message")
    if message is not None and not isinstance(message, str):
        raise RewardFileError(
            f"{where} 'message' must be a string or null, got {_describe(message)}",
            path=path,
            fix="Write the message as text",
        )
    return Subtask(
        name=name, score=score, weight=weight, visibility=Visibility(visibility), message=message
    )


def _parse_reward_json(path: Path, text: str) -> Scorecard:
    data = _load_json(path, text)
    if not isinstance(data, dict):
        raise RewardFileError(
            f"reward.json must hold a flat JSON object of numbers, got {_describe(data)}",
            path=path,
            fix='Write e.g. {"reward": 0.75}',
        )
    if not data:
        raise RewardFileError(
            "reward.json holds an empty object", path=path, fix='Write e.g. {"reward": 0.75}'
        )
    values: dict[str, float] = {}
    for key, value in data.items():
        if not _is_number(value):
            raise RewardFileError(
                f"value of {key!r} must be a number, got {_describe(value)}",
                path=path,
                fix="reward.json is a flat object of numbers; nest nothing, quote no numbers",
            )
        number = _as_float(value)
        if not math.isfinite(number):
            raise RewardFileError(
                f"value of {key!r} is not finite", path=path, fix="Write finite numbers"
            )
        values[key] = number
    if "reward" in values:
        key = "reward"
    elif len(values) == 1:
        (key,) = values
    else:
        raise RewardFileError(
            "reward.json has no 'reward' key and more than one value, so the reward is "
            "ambiguous; keys: " + ", ".join(repr(k) for k in values),
            path=path,
            fix="Add a 'reward' key holding the overall reward",
        )
    reward = _reward_value(path, values[key], f"the reward ({key!r})")
    return Scorecard(reward=reward, source="reward.json", values=values)


def _parse_reward_txt(path: Path, text: str) -> Scorecard:
    stripped = text.strip()
    if not _NUMBER.fullmatch(stripped):
        shown = stripped if len(stripped) <= 40 else stripped[:40] + "..."
        raise RewardFileError(
            f"reward.txt must hold one number, got {shown!r}",
            path=path,
            fix="Write a single number in [0, 1], e.g. `echo 0.75 > /logs/verifier/reward.txt`",
        )
    reward = _reward_value(path, float(stripped), "the reward")
    return Scorecard(reward=reward, source="reward.txt")
