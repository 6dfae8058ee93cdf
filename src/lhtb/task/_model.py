"""The task model: what one benchmark task is, once loaded and validated.

Tasks come from Harbor / Terminal-Bench style directories (see
:func:`lhtb.load_task`) or are built inline. Every value here is already
validated; raw ``${VAR}`` templates in ``env`` tables are kept as written and
resolved on the host at run time with :func:`resolve_env`.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lhtb._util.display import Displayable, View
from lhtb.errors import EnvTemplateError

__all__ = [
    "AgentConfig",
    "Artifact",
    "ContinueMode",
    "EnvironmentConfig",
    "Healthcheck",
    "IsolationMode",
    "McpServer",
    "SolutionConfig",
    "Step",
    "StepReward",
    "SubtaskSpec",
    "Task",
    "TaskInfo",
    "Tier",
    "VerifierConfig",
    "Visibility",
    "resolve_env",
    "verifies_live",
]

DEFAULT_PASS_THRESHOLD = 0.95
DEFAULT_WEAK_MAX_REWARD = 0.5


class IsolationMode(enum.StrEnum):
    """How the verifier is kept out of the agent's reach (see docs/isolation.md)."""

    SEPARATE = "separate"
    SNAPSHOT = "snapshot"
    SHARED = "shared"


class Tier(enum.StrEnum):
    """How long a task is, by measurement (``[metadata].tier``; docs/tasks.md).

    ``short``: a probe solved it in under 30 minutes; ``long``: it resisted 60.
    """

    SHORT = "short"
    LONG = "long"


class ContinueMode(enum.StrEnum):
    """How an agent is resumed after a rejected verifier pass."""

    SAME_CONVERSATION = "same_conversation"
    RESTART = "restart"


class Visibility(enum.StrEnum):
    """Whether a subtask is mirrored by a public check the agent can run."""

    PUBLIC = "public"
    HIDDEN = "hidden"


def _frozen_dict(value: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict(value or {})


def _positive(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or value <= 0:
        raise ValueError(f"{attribute.name} must be > 0, got {value!r}")


def _threshold(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not 0 < value <= 1:
        raise ValueError(f"{attribute.name} must be in (0, 1], got {value!r}")


def _passes(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or value < 1):
        raise ValueError(f"{attribute.name} must be >= 1 or None, got {value!r}")


def _interval(instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and (isinstance(value, bool) or not 0 < value < float("inf")):
        raise ValueError(f"{attribute.name} must be a positive number of seconds, got {value!r}")


@attrs.frozen
class Artifact:
    """A path in the agent sandbox handed to the verifier (``separate`` isolation)."""

    source: str
    destination: str | None = None
    exclude: tuple[str, ...] = ()

    @property
    def target(self) -> str:
        """Where the artifact lands in the verifier sandbox."""
        return self.destination or self.source


@attrs.frozen
class Healthcheck:
    """A command that must succeed before the agent starts (Harbor semantics)."""

    command: str
    interval_sec: float = 5.0
    timeout_sec: float = 30.0
    start_period_sec: float = 0.0
    start_interval_sec: float = 5.0
    retries: int = 3


@attrs.frozen
class McpServer:
    """An MCP server the task offers to agents (passed through, not started by lhtb)."""

    name: str
    transport: str = "sse"
    url: str | None = None
    command: str | None = None
    args: tuple[str, ...] = ()


@attrs.frozen
class EnvironmentConfig:
    """``[environment]``: how the sandbox is built and sized."""

    build_timeout_sec: float = 600.0
    docker_image: str | None = None
    os: str = "linux"
    cpus: float = 1
    memory_mb: int = 2048
    storage_mb: int = 10240
    gpus: int = 0
    gpu_types: tuple[str, ...] | None = None
    allow_internet: bool = True
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_dict)
    workdir: str | None = None
    healthcheck: Healthcheck | None = None
    mcp_servers: tuple[McpServer, ...] = ()
    skills_dir: str | None = None


@attrs.frozen
class AgentConfig:
    """``[agent]``: the budget and how the agent runs and resumes."""

    timeout_sec: float | None = None
    user: str | int | None = None
    continue_until_timeout: bool = False
    continue_mode: ContinueMode = ContinueMode.SAME_CONVERSATION


@attrs.frozen
class SubtaskSpec:
    """A subtask the verifier scores, declared in ``[[verifier.subtasks]]``."""

    name: str
    weight: float = attrs.field(default=1.0, validator=_positive)
    visibility: Visibility = Visibility.HIDDEN
    description: str = ""
    live: bool = False
    """The tests grade the agent's running services (only with ``[verifier].live = true``):
    a re-grade of the kept files cannot reproduce the score, so ``lhtb verify`` takes it
    from the episode's record."""


@attrs.frozen
class VerifierConfig:
    """``[verifier]``: how and where the hidden tests run."""

    isolation: IsolationMode = IsolationMode.SHARED
    timeout_sec: float = 600.0
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_dict)
    user: str | int | None = None
    pass_threshold: float = attrs.field(default=DEFAULT_PASS_THRESHOLD, validator=_threshold)
    max_passes: int | None = attrs.field(default=None, validator=_passes)
    environment: EnvironmentConfig | None = None
    subtasks: tuple[SubtaskSpec, ...] = ()
    live: bool | None = None
    """Whether the agent's processes keep running while the tests run (``None``: the
    default, see :func:`verifies_live`)."""
    checkpoint_interval_sec: float | None = attrs.field(default=None, validator=_interval)
    """Grade the agent's state in secret every this many budget seconds (``None``: never)."""
    weak_max_reward: float = attrs.field(default=DEFAULT_WEAK_MAX_REWARD, validator=_threshold)
    """lhtb only: ``lhtb check`` wants each of the task's weak solutions to score below it."""


@attrs.frozen
class SolutionConfig:
    """``[solution]``: environment for the oracle's ``solve.sh``."""

    env: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_dict)


class StepReward(enum.StrEnum):
    """How a multi-step task's reward comes from its steps' (Harbor's rule)."""

    MEAN = "mean"
    """The mean over the steps whose verifier produced a reward."""
    FINAL = "final"
    """The last step run's reward."""


@attrs.frozen
class Step:
    """One step of a multi-step task (Harbor ``[[steps]]``, ``steps/<name>/``).

    Steps run in order in one sandbox: the agent gets the step's instruction,
    then the step's tests (the task's ``tests/`` with the step's own over them)
    score it. Unset timeouts and users fall back to the task's.
    """

    name: str
    instruction: str = ""
    agent_timeout_sec: float | None = None
    agent_user: str | int | None = None
    verifier_timeout_sec: float | None = None
    verifier_env: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_dict)
    verifier_user: str | int | None = None
    min_reward: float | None = None
    """The remaining steps are skipped when this step's reward is below it (or missing)."""
    tests_dir: Path | None = None
    solution_dir: Path | None = None
    workdir_dir: Path | None = None
    """Files copied into the working directory before the step (``workdir/setup.sh`` runs)."""


@attrs.frozen
class TaskInfo:
    """``[task]``: package information (Harbor registry names are ``org/name``).

    ``extra`` keeps the keys Harbor does not define either (it ignores them): they
    describe the package and change nothing.
    """

    name: str | None = None
    version: str | None = None
    description: str = ""
    authors: tuple[Mapping[str, str], ...] = ()
    keywords: tuple[str, ...] = ()
    extra: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_dict)


@attrs.frozen(repr=False)
class Task(Displayable):
    """One benchmark task.

    ``path`` is the task directory; tasks built inline may leave it ``None`` and
    give ``environment_dir`` / ``tests_dir`` / ``solution_dir`` directly.
    """

    name: str
    instruction: str
    environment: EnvironmentConfig = attrs.field(factory=EnvironmentConfig)
    agent: AgentConfig = attrs.field(factory=AgentConfig)
    verifier: VerifierConfig = attrs.field(factory=VerifierConfig)
    solution: SolutionConfig = attrs.field(factory=SolutionConfig)
    artifacts: tuple[Artifact, ...] = ()
    metadata: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_dict)
    info: TaskInfo = attrs.field(factory=TaskInfo)
    schema_version: str = "1.1"
    source: str | None = None
    path: Path | None = None
    environment_dir: Path | None = None
    tests_dir: Path | None = None
    solution_dir: Path | None = None
    checksum: str = ""
    steps: tuple[Step, ...] = ()
    """Harbor multi-step tasks: the steps in order (empty for an ordinary task)."""
    step_reward: StepReward = StepReward.MEAN

    @property
    def category(self) -> str | None:
        """The ``[metadata].category`` value, when the task declares one."""
        value = self.metadata.get("category")
        return str(value) if value is not None else None

    @property
    def tier(self) -> Tier | None:
        """The ``[metadata].tier`` value (checked at load), when the task declares one."""
        value = self.metadata.get("tier")
        return Tier(value) if value is not None else None

    @property
    def budget_sec(self) -> float | None:
        """The agent's time budget from ``[agent].timeout_sec``."""
        return self.agent.timeout_sec

    def _view(self) -> View:
        """The short facts, not the instruction."""
        budget = "-" if self.budget_sec is None else f"{self.budget_sec:g} s"
        first_line = self.instruction.strip().splitlines()[0] if self.instruction.strip() else ""
        return View(
            f"Task {self.name}",
            (
                ("category", self.category or "-"),
                ("budget", budget),
                ("continue until timeout", "yes" if self.agent.continue_until_timeout else "no"),
                ("isolation", str(self.verifier.isolation)),
                ("subtasks", str(len(self.verifier.subtasks))),
                ("instruction", first_line[:120] + ("..." if len(first_line) > 120 else "")),
            ),
        )

    def __repr__(self) -> str:
        return f"Task(name={self.name!r}, category={self.category!r}, path={self.path!r})"


_TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def resolve_env(
    template: Mapping[str, str], environ: Mapping[str, str] | None = None, *, where: str = "env"
) -> dict[str, str]:
    """Resolve ``${VAR}`` and ``${VAR:-default}`` templates from the host environment.

    Raises:
        EnvTemplateError: a referenced variable is unset and has no default.
    """
    host = os.environ if environ is None else environ
    missing: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in host:
            return host[name]
        if default is not None:
            return default
        missing.append(name)
        return ""

    resolved = {key: _TEMPLATE.sub(substitute, value) for key, value in template.items()}
    if missing:
        names = ", ".join(sorted(set(missing)))
        raise EnvTemplateError(
            f"host environment variable(s) {names} not set",
            where=where,
            fix=f"export {sorted(set(missing))[0]}=... before the run, or give a default "
            "with ${VAR:-default}",
        )
    return resolved


def verifies_live(task: Task, *, continue_until_timeout: bool | None = None) -> bool:
    """Whether ``task``'s verifier passes leave the agent's processes running.

    ``[verifier].live`` when given; otherwise live exactly when the tests run in
    the agent's sandbox (``shared``) and the task is single-shot, as in Harbor.
    A task that declares continue-until-timeout, or an episode run that way
    (``continue_until_timeout``, as ``run_episode`` takes it), keeps every
    process frozen during each pass.
    """
    if task.verifier.live is not None:
        return task.verifier.live
    resumes = task.agent.continue_until_timeout or bool(continue_until_timeout)
    return task.verifier.isolation is IsolationMode.SHARED and not resumes
