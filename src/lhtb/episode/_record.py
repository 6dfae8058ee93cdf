"""The Episode record: the full account of one agent running one task.

An :class:`Episode` is written to ``episode.json`` as the run goes and can be
read back losslessly with :meth:`Episode.from_json`. The format is versioned by
``schema_version``; a record from a newer major version is refused rather than
half-read.
"""

from __future__ import annotations

import enum
import json
import os
import re
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import attrs
import cattrs
from cattrs.preconf.json import make_converter

from lhtb._util.display import Displayable, View, number
from lhtb.agents._usage import Usage
from lhtb.errors import EpisodeFormatError
from lhtb.task._model import ContinueMode, IsolationMode, Tier
from lhtb.verify._pass import KeptInputs, PassOutcome, VerifierPass
from lhtb.verify._scoring import SUBTASK_HEADERS, Scorecard, subtask_rows

__all__ = [
    "EPISODE_SCHEMA_VERSION",
    "ERROR_OUTCOMES",
    "Checkpoint",
    "Episode",
    "EpisodeConfig",
    "FeedbackMode",
    "KeptInputs",
    "Outcome",
    "PassOutcome",
    "StepRecord",
    "Timings",
    "TurnEnd",
    "TurnRecord",
    "VerifierPass",
]

EPISODE_SCHEMA_VERSION = "1.3"
STRICT_REWARD = 1.0


class Outcome(enum.StrEnum):
    """How an episode ended. Distinct outcomes are never conflated."""

    SOLVED = "solved"
    UNSOLVED = "unsolved"
    AGENT_ERROR = "agent_error"
    VERIFIER_ERROR = "verifier_error"
    VERIFIER_TIMEOUT = "verifier_timeout"
    INFRA_ERROR = "infra_error"
    HARNESS_ERROR = "harness_error"
    """An exception inside lhtb itself (a bug): never retried; the traceback is kept."""
    CANCELLED = "cancelled"

    @property
    def retryable(self) -> bool:
        """Only infrastructure (sandbox, daemon) failures are worth running again."""
        return self is Outcome.INFRA_ERROR


ERROR_OUTCOMES = frozenset(
    {
        Outcome.AGENT_ERROR,
        Outcome.VERIFIER_ERROR,
        Outcome.VERIFIER_TIMEOUT,
        Outcome.INFRA_ERROR,
        Outcome.HARNESS_ERROR,
    }
)
"""Outcomes in which something failed (not the agent's score)."""


class FeedbackMode(enum.StrEnum):
    """What a rejected agent is told. ``diagnostic`` makes an episode not comparable."""

    BINARY = "binary"
    DIAGNOSTIC = "diagnostic"


class TurnEnd(enum.StrEnum):
    """Why an agent turn ended."""

    RETURNED = "returned"
    DEADLINE = "deadline"
    ERROR = "error"
    CANCELLED = "cancelled"


@attrs.frozen
class EpisodeConfig:
    """The settings an episode ran under; enough to tell whether two runs compare.

    ``seed`` is the grading seed every verifier pass of the episode got as
    ``$LHTB_SEED`` (``None`` only in records written before lhtb kept one).
    """

    task_name: str
    task_checksum: str
    agent: str
    budget_sec: float | None
    task_budget_sec: float | None
    continue_until_timeout: bool
    continue_mode: ContinueMode
    feedback: FeedbackMode
    isolation: IsolationMode
    pass_threshold: float
    max_passes: int | None = None
    verifier_time_counts: bool = True
    backend: str = ""
    model: str | None = None
    category: str | None = None
    seed: int | None = None
    task_path: str | None = None
    live_verification: bool = False
    """The agent's processes kept running while the tests ran (``[verifier].live``)."""
    checkpoint_interval_sec: float | None = None
    """Hidden checkpoint grading every this many budget seconds (``None``: none)."""
    tier: Tier | None = None
    """The task's measured tier (``[metadata].tier``), when it declares one."""

    @property
    def comparable(self) -> bool:
        """Binary feedback and the task's own budget: fit for the main leaderboard."""
        return self.feedback is FeedbackMode.BINARY and self.budget_sec == self.task_budget_sec


@attrs.frozen
class TurnRecord:
    """One agent turn."""

    number: int
    started_at: datetime
    duration_sec: float
    end: TurnEnd
    feedback: str | None = None
    error: str | None = None
    usage: Usage = attrs.field(factory=Usage)


@attrs.frozen
class Checkpoint:
    """One hidden grading of the agent's state while it worked (the agent is told nothing).

    ``elapsed_sec`` is the agent's budget clock at the capture (the clock the
    budget is measured on, as :attr:`VerifierPass.elapsed_sec`); ``capture_sec``
    how long the agent's sandbox was frozen for the capture, ``grading_sec``
    how long grading the capture took in its own verifier sandbox. ``reward``
    and ``scorecard`` are ``None`` when grading produced none (``error`` says
    why); ``log_dir`` is the grading's folder, relative to the episode directory.
    """

    number: int
    started_at: datetime
    elapsed_sec: float
    reward: float | None
    scorecard: Scorecard | None
    capture_sec: float
    grading_sec: float
    error: str | None = None
    log_dir: str | None = None


@attrs.frozen
class StepRecord:
    """One step of a multi-step episode (Harbor ``[[steps]]``).

    ``turn`` and ``pass_number`` point into the episode's turns and passes;
    ``error`` says why the step stopped the episode (a failed ``workdir/setup.sh``,
    a reward below the step's ``min_reward``), if it did.
    """

    name: str
    turn: int | None = None
    pass_number: int | None = None
    reward: float | None = None
    error: str | None = None


@attrs.frozen
class Timings:
    """Wall-clock seconds spent in each phase of the episode."""

    provision_sec: float = 0.0
    agent_sec: float = 0.0
    verifier_sec: float = 0.0
    teardown_sec: float = 0.0
    total_sec: float = 0.0


@attrs.frozen(repr=False)
class Episode(Displayable):
    """The record of one run of one agent on one task.

    ``reward`` is the official score: the final verifier pass's reward, or
    ``None`` when no pass produced one; for a multi-step task, the steps'
    rewards combined by the task's rule (``steps`` records each step).
    ``best_reward`` is the best interim reward, kept for analysis only.
    ``checkpoints`` are the hidden gradings taken while the agent worked
    (analysis only, never the score); ``checkpoints_skipped`` counts those
    that fell due while the previous one was still being graded.
    ``error`` is written for people; ``error_detail`` keeps the raw exception
    (and, for ``harness_error``, where its traceback was saved). ``can_retry``
    is false for a failure that running again cannot fix (see :attr:`retryable`).
    """

    id: str
    config: EpisodeConfig
    outcome: Outcome
    started_at: datetime
    reward: float | None = None
    best_reward: float | None = None
    turns: tuple[TurnRecord, ...] = ()
    passes: tuple[VerifierPass, ...] = ()
    error: str | None = None
    ended_at: datetime | None = None
    timings: Timings = attrs.field(factory=Timings)
    usage: Usage = attrs.field(factory=Usage)
    attempt: int = 1
    error_detail: str | None = None
    can_retry: bool = True
    steps: tuple[StepRecord, ...] = ()
    checkpoints: tuple[Checkpoint, ...] = ()
    checkpoints_skipped: int = 0
    schema_version: str = EPISODE_SCHEMA_VERSION

    @property
    def retryable(self) -> bool:
        """An infrastructure failure that another try may not meet."""
        return self.outcome.retryable and self.can_retry

    @property
    def solved(self) -> bool:
        """The final reward reached the task's pass threshold."""
        return self.reward is not None and self.reward >= self.config.pass_threshold

    @property
    def strict(self) -> bool:
        """The final reward is exactly 1.0."""
        return self.reward is not None and self.reward >= STRICT_REWARD

    @property
    def finished(self) -> bool:
        """The episode reached an end state (``ended_at`` is set)."""
        return self.ended_at is not None

    @property
    def scorecard(self) -> Scorecard | None:
        """The final verifier pass's scorecard, if it produced one."""
        return self.passes[-1].scorecard if self.passes else None

    @property
    def final_inputs(self) -> KeptInputs | None:
        """The final verification's inputs as kept for ``lhtb verify``, if any."""
        return self.passes[-1].inputs if self.passes and self.passes[-1].final else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, including the derived ``solved``/``strict``/``comparable``."""
        data: dict[str, Any] = _converter.unstructure(self)
        data["solved"] = self.solved
        data["strict"] = self.strict
        data["config"]["comparable"] = self.config.comparable
        return data

    def to_json(self, *, indent: int | None = 2) -> str:
        """Serialise to JSON (lossless: :meth:`from_json` gives an equal episode)."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Episode:
        """Rebuild an episode from :meth:`to_dict` output.

        Raises:
            EpisodeFormatError: the record is malformed, its derived fields
                contradict its data, or it is from another major version.
        """
        _check_version(data.get("schema_version"))
        config = data.get("config")
        if not isinstance(config, dict):
            raise EpisodeFormatError(
                "malformed episode record: 'config' is missing or not an object",
                fix=_FIX_MALFORMED,
            )
        payload = {k: v for k, v in data.items() if k not in _DERIVED}
        payload["config"] = {k: v for k, v in config.items() if k != "comparable"}
        try:
            episode = _converter.structure(payload, cls)
        except cattrs.BaseValidationError as exc:
            problems = "; ".join(cattrs.transform_error(exc, path="episode"))
            raise EpisodeFormatError(
                f"malformed episode record: {problems}", fix=_FIX_MALFORMED
            ) from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise EpisodeFormatError(
                f"malformed episode record: {exc}", fix=_FIX_MALFORMED
            ) from exc
        derived = {
            "solved": (data.get("solved"), episode.solved),
            "strict": (data.get("strict"), episode.strict),
            "config.comparable": (config.get("comparable"), episode.config.comparable),
        }
        for name, (stored, actual) in derived.items():
            if stored is not None and stored is not actual:
                raise EpisodeFormatError(
                    f"episode record says {name} is {stored!r} but its data gives {actual!r}",
                    fix="the record was edited by hand; restore it or re-run the episode",
                )
        return episode

    @classmethod
    def from_json(cls, text: str) -> Episode:
        """Parse :meth:`to_json` output."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EpisodeFormatError(f"episode record is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise EpisodeFormatError("episode record is not a JSON object")
        return cls.from_dict(data)

    def save(self, path: Path) -> None:
        """Write atomically: a crash mid-write leaves the previous record intact."""
        text = self.to_json()
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        tmp = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            tmp.replace(path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: Path) -> Episode:
        """Read an ``episode.json`` file."""
        try:
            return cls.from_json(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise EpisodeFormatError(
                f"episode record is not UTF-8 text (byte {exc.start})",
                where=str(path),
                fix=_FIX_MALFORMED,
            ) from exc
        except EpisodeFormatError as exc:
            raise EpisodeFormatError(exc.what, where=str(path), fix=exc.fix) from exc

    def _view(self) -> View:
        """Outcome, reward, passes, and the final scorecard per subtask."""
        config = self.config
        facts = [
            ("outcome", str(self.outcome)),
            ("reward", number(self.reward)),
            ("best interim reward", number(self.best_reward)),
            ("turns / passes", f"{len(self.turns)} / {len(self.passes)}"),
            ("time", f"{self.timings.total_sec:.1f} s"),
            ("model", config.model or "-"),
        ]
        if self.error:
            facts.append(("error", self.error))
        return View(
            f"Episode {self.id}: {config.task_name} / {config.agent}",
            tuple(facts),
            SUBTASK_HEADERS,
            subtask_rows(self.scorecard),
        )

    def __repr__(self) -> str:
        return (
            f"Episode(id={self.id!r}, task={self.config.task_name!r}, "
            f"agent={self.config.agent!r}, outcome={str(self.outcome)!r}, "
            f"reward={self.reward!r}, passes={len(self.passes)})"
        )


_DERIVED = frozenset({"solved", "strict"})
_FIX_MALFORMED = "the file may be truncated or edited; re-run the episode to get a new record"


def _check_version(value: object) -> None:
    """Accept a record of this major version (any minor); refuse the rest."""
    if not isinstance(value, str) or not re.fullmatch(r"\d+\.\d+", value):
        raise EpisodeFormatError(
            f"malformed episode record: 'schema_version' must be a string like "
            f"{EPISODE_SCHEMA_VERSION!r}, got {value!r}",
            fix=_FIX_MALFORMED,
        )
    major = int(value.split(".", 1)[0])
    ours = int(EPISODE_SCHEMA_VERSION.split(".", 1)[0])
    if major > ours:
        raise EpisodeFormatError(
            f"episode schema version {value} is newer than this lhtb reads "
            f"({EPISODE_SCHEMA_VERSION})",
            fix="upgrade lhtb to read this record",
        )
    if major < ours:
        raise EpisodeFormatError(
            f"episode schema version {value} is older than this lhtb reads "
            f"({EPISODE_SCHEMA_VERSION})",
            fix="read it with the lhtb release that wrote it",
        )


def _strict(kind: type[Any]) -> Callable[[Any, type[Any]], Any]:
    """A structure hook that refuses to coerce: "false" is not a bool, 1.5 not an int.

    The hook also serves subclasses (the ``StrEnum`` outcomes), built as ``target(value)``.
    """
    accepted: tuple[type, ...] = (int, float) if kind is float else (kind,)

    def structure(value: Any, target: type[Any]) -> Any:
        if isinstance(value, bool) is not (kind is bool) or not isinstance(value, accepted):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        return target(value)

    return structure


_converter = make_converter()
for _kind in (bool, int, float, str):
    _converter.register_structure_hook(_kind, _strict(_kind))
