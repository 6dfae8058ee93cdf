"""The ``task.toml`` schema: Harbor 1.x keys, LHTB's keys and lhtb's own.

:func:`parse_task_toml` turns the plain data of a parsed ``task.toml`` into
the validated configuration objects of :mod:`lhtb.task`. Every problem is
recorded on the :class:`~lhtb.task._toml_reader.Reader`; only a feature lhtb does
not run raises at once (:class:`~lhtb.errors.UnsupportedFeatureError`).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Any

import attrs

from lhtb.task._environment import ENVIRONMENT_KEYS, parse_environment
from lhtb.task._model import (
    AgentConfig,
    Artifact,
    ContinueMode,
    EnvironmentConfig,
    IsolationMode,
    SolutionConfig,
    Step,
    StepReward,
    SubtaskSpec,
    TaskInfo,
    Tier,
    VerifierConfig,
    Visibility,
)
from lhtb.task._network import NETWORK_KEYS, check_phase_network, check_verifier_collect
from lhtb.task._steps import check_step_task, parse_steps
from lhtb.task._toml_lines import dotted
from lhtb.task._toml_reader import Reader, Section, describe

__all__ = ["KEY_HOMES", "TaskToml", "parse_task_toml"]

DEFAULT_SCHEMA_VERSION = "1.1"

ROOT_KEYS = frozenset(
    {
        "schema_version",
        "version",
        "source",
        "artifacts",
        "multi_step_reward_strategy",
        "steps",
        "task",
        "metadata",
        "verifier",
        "agent",
        "environment",
        "solution",
    }
)
TASK_KEYS = frozenset({"name", "version", "description", "authors", "keywords"})
AUTHOR_KEYS = frozenset({"name", "email"})
ARTIFACT_KEYS = frozenset({"source", "destination", "exclude"})
AGENT_KEYS = frozenset(
    {"timeout_sec", "user", "continue_until_timeout", "continue_mode", *NETWORK_KEYS}
)
SOLUTION_KEYS = frozenset({"env"})
VERIFIER_KEYS = frozenset(
    {
        "timeout_sec",
        "env",
        "user",
        "environment_mode",
        "environment",
        "isolation",
        "pass_threshold",
        "max_passes",
        "subtasks",
        "live",
        "checkpoint_interval_sec",
        "collect",
        "weak_max_reward",
        *NETWORK_KEYS,
    }
)
SUBTASK_KEYS = frozenset({"name", "weight", "visibility", "description", "live"})


def _homes() -> dict[str, tuple[str, ...]]:
    sections = {
        "": ROOT_KEYS,
        "task": TASK_KEYS,
        "agent": AGENT_KEYS,
        "verifier": VERIFIER_KEYS,
        "environment": ENVIRONMENT_KEYS,
        "solution": SOLUTION_KEYS,
    }
    homes: dict[str, list[str]] = {}
    for section, keys in sections.items():
        for key in keys:
            homes.setdefault(key, []).append(section)
    return {key: tuple(places) for key, places in homes.items()}


KEY_HOMES: Mapping[str, tuple[str, ...]] = _homes()
"""For each key of a main section, the sections where it is valid (used in hints)."""

# Harbor's registry name rule for [task].name.
_PACKAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_SCHEMA_VERSION = re.compile(r"1\.[0-4]\Z")


class _EnvironmentMode(enum.StrEnum):
    SHARED = "shared"
    SEPARATE = "separate"


@attrs.frozen
class TaskToml:
    """Everything ``task.toml`` says about a task, validated."""

    schema_version: str
    source: str | None
    artifacts: tuple[Artifact, ...]
    info: TaskInfo
    metadata: dict[str, Any]
    environment: EnvironmentConfig
    agent: AgentConfig
    verifier: VerifierConfig
    solution: SolutionConfig
    steps: tuple[Step, ...] = ()
    step_reward: StepReward = StepReward.MEAN


def parse_task_toml(reader: Reader, data: Mapping[str, Any]) -> TaskToml:
    """Validate the plain data of a ``task.toml``; problems go to ``reader.errors``.

    Raises:
        UnsupportedFeatureError: the task uses a multi-step feature lhtb does not run.
    """
    root = reader.section(data, (), ROOT_KEYS)
    step_reward = root.choice("multi_step_reward_strategy", StepReward, StepReward.MEAN)
    steps = parse_steps(root)
    errors_before = len(reader.errors)
    artifacts = _artifacts(root)
    artifacts_valid = len(reader.errors) == errors_before
    agent_table = _table(root, "agent", AGENT_KEYS)
    verifier_table = _table(root, "verifier", VERIFIER_KEYS)
    agent = _agent(agent_table)
    verifier = _verifier(verifier_table, artifacts, agent, check_artifacts=artifacts_valid)
    if steps:
        check_step_task(root, steps, agent, verifier)
    environment = parse_environment(_table(root, "environment", ENVIRONMENT_KEYS))
    for phase in (agent_table, verifier_table):
        check_phase_network(phase, environment.allow_internet)
    check_verifier_collect(verifier_table)
    return TaskToml(
        schema_version=_schema_version(root),
        source=root.string("source", None),
        artifacts=artifacts,
        info=_info(root),
        metadata=_metadata(root),
        environment=environment,
        agent=agent,
        verifier=verifier,
        solution=SolutionConfig(env=_table(root, "solution", SOLUTION_KEYS).env("env")),
        steps=steps,
        step_reward=step_reward,
    )


def _table(parent: Section, key: str, allowed: frozenset[str]) -> Section:
    table = parent.table(key, allowed)
    return table if table is not None else parent.reader.section({}, parent.key(key), allowed)


def _schema_version(root: Section) -> str:
    if root.has("version") and root.has("schema_version"):
        root.fail(
            "version",
            "both the legacy `version` and `schema_version` are set",
            "Remove the legacy `version` key",
        )
    key = "version" if root.has("version") and not root.has("schema_version") else "schema_version"
    value = root.data.get(key)
    if value is None:
        return DEFAULT_SCHEMA_VERSION
    if not isinstance(value, str):
        root.fail(
            key,
            f"`{key}` must be a quoted string, got {value!r}",
            f'Write {key} = "{value}"',
        )
        return DEFAULT_SCHEMA_VERSION
    if not _SCHEMA_VERSION.match(value):
        root.fail(
            key,
            f'task schema version "{value}" is not supported',
            'lhtb reads Harbor task schema 1.0 to 1.4; set schema_version = "1.1" after '
            "checking the task against docs/task-format.md",
        )
        return DEFAULT_SCHEMA_VERSION
    return value


def _artifacts(root: Section) -> tuple[Artifact, ...]:
    value = root.data.get("artifacts", [])
    if not isinstance(value, list):
        root.fail(
            "artifacts",
            f"`artifacts` must be an array, got {describe(value)}",
            'Write artifacts = ["/app/output.txt"] or [{ source = "/app/out" }]',
        )
        return ()
    artifacts: list[Artifact] = []
    for index, item in enumerate(value):
        path = ("artifacts", index)
        if isinstance(item, str) and item.strip():
            artifacts.append(Artifact(source=item))
        elif isinstance(item, dict):
            entry = root.reader.section(item, path, ARTIFACT_KEYS)
            source = entry.string("source", None, required=True)
            if source is not None:
                artifacts.append(
                    Artifact(
                        source=source,
                        destination=entry.string("destination", None),
                        exclude=entry.string_list("exclude", ()),
                    )
                )
        else:
            root.reader.fail(
                f"`artifacts[{index}]` must be a path string or a table "
                f"{{ source, destination, exclude }}, got {describe(item)}",
                path,
                'Write the entry as "/app/path" or { source = "/app/path" }',
            )
    return tuple(artifacts)


def _info(root: Section) -> TaskInfo:
    # Any key: Harbor ignores the ones it does not define; lhtb keeps them in `extra`.
    table = root.table("task", None)
    if table is None:
        return TaskInfo()
    name = table.string("name", None, required=True)
    if name is not None and (not _PACKAGE_NAME.match(name) or ".." in name):
        table.fail(
            "name",
            f'`task.name` "{name}" is not a package name of the form "org/name"',
            'Write e.g. name = "my-org/my-task" (letters, digits, ".", "_", "-"), or drop '
            "[task].name to use the directory name",
        )
        name = None
    extra = {key: value for key, value in table.data.items() if key not in TASK_KEYS}
    for key in extra:
        if key in KEY_HOMES:
            where = " or ".join(f"[{home}]" if home else "the top level" for home in KEY_HOMES[key])
            table.fail(key, f"`{key}` does nothing in [task]", f"Move it to {where}")
    authors: list[dict[str, str]] = []
    for author in table.tables("authors", AUTHOR_KEYS):
        author_name = author.string("name", None, required=True)
        email = author.string("email", None)
        if author_name is not None:
            authors.append({"name": author_name} | ({"email": email} if email else {}))
    return TaskInfo(
        name=name,
        description=_text(table, "description"),
        version=table.string("version", None),
        authors=tuple(authors),
        keywords=table.string_list("keywords", ()),
        extra=extra,
    )


def _text(section: Section, key: str) -> str:
    """A string that may be empty (descriptions)."""
    value = section.data.get(key, "")
    if not isinstance(value, str):
        name = dotted(section.key(key))
        section.fail(
            key, f"`{name}` must be a string, got {describe(value)}", f'Write {key} = "..."'
        )
        return ""
    return value


def _metadata(root: Section) -> dict[str, Any]:
    value = root.data.get("metadata", {})
    if not isinstance(value, dict):
        root.fail("metadata", "`metadata` must be a table", "Write it as a [metadata] section")
        return {}
    free_form = root.reader.section(value, ("metadata",), allowed=value.keys())
    free_form.choice("tier", Tier, None)  # the one key lhtb reads there (Task.tier)
    return value


def _agent(section: Section) -> AgentConfig:
    return AgentConfig(
        timeout_sec=section.number("timeout_sec", None, unit=" of seconds"),
        user=section.user("user"),
        continue_until_timeout=section.boolean("continue_until_timeout", False),
        continue_mode=section.choice("continue_mode", ContinueMode, ContinueMode.SAME_CONVERSATION),
    )


def _verifier(
    section: Section,
    artifacts: tuple[Artifact, ...],
    agent: AgentConfig,
    *,
    check_artifacts: bool,
) -> VerifierConfig:
    kwargs: dict[str, Any] = {
        "timeout_sec": section.number("timeout_sec", None, unit=" of seconds"),
        "env": section.env("env"),
        "user": section.user("user"),
        "pass_threshold": section.number("pass_threshold", None, maximum=1.0),
        "max_passes": section.integer("max_passes", None, minimum=1),
        "weak_max_reward": section.number("weak_max_reward", None, maximum=1.0),
        "checkpoint_interval_sec": section.number(
            "checkpoint_interval_sec", None, unit=" of seconds"
        ),
    }
    environment = section.table("environment", ENVIRONMENT_KEYS)
    if environment is not None:
        kwargs["environment"] = parse_environment(environment)
    kwargs["isolation"] = _isolation(section, artifacts, check_artifacts=check_artifacts)
    kwargs["live"] = _live(section, kwargs["isolation"], agent)
    kwargs["subtasks"] = _subtasks(section, live_verifier=bool(kwargs["live"]))
    if kwargs["live"] and kwargs["checkpoint_interval_sec"] is not None:
        section.fail(
            "checkpoint_interval_sec",
            "checkpoints grade a still capture of the agent's state, but `verifier.live = true` "
            "says the tests need the agent's running processes",
            "Drop `checkpoint_interval_sec`, or drop `live` if the tests only read files",
        )
    return VerifierConfig(**{key: value for key, value in kwargs.items() if value is not None})


def _isolation(
    section: Section, artifacts: tuple[Artifact, ...], *, check_artifacts: bool
) -> IsolationMode:
    explicit = section.choice("isolation", IsolationMode, None)
    mode = section.choice("environment_mode", _EnvironmentMode, None)
    if explicit is not None and mode is not None and explicit.value != mode.value:
        section.fail(
            "isolation",
            f'`verifier.isolation = "{explicit}"` disagrees with LHTB\'s '
            f'`verifier.environment_mode = "{mode}"`',
            "Remove one of the two keys, or make them agree",
        )
    if explicit is not None:
        isolation = explicit
    elif mode is not None:
        isolation = IsolationMode(mode.value)
    else:
        isolation = IsolationMode.SEPARATE if artifacts else IsolationMode.SHARED
    if isolation is IsolationMode.SEPARATE and not artifacts and check_artifacts:
        key = "isolation" if explicit is not None else "environment_mode"
        section.fail(
            key,
            "the verifier runs in a separate sandbox but the task declares no artifacts "
            "to hand over",
            "Declare the paths the verifier needs at the top of task.toml, e.g. artifacts = "
            '["/app/output"], or use isolation = "snapshot" to verify a copy of the whole '
            "agent filesystem",
        )
    return isolation


def _live(section: Section, isolation: IsolationMode, agent: AgentConfig) -> bool | None:
    if not section.has("live"):
        return None
    live = section.boolean("live", False)
    if not live:
        return live
    if isolation is IsolationMode.SNAPSHOT:
        section.fail(
            "live",
            "`verifier.live = true` cannot verify a snapshot: the agent's processes do not "
            "run in it",
            'Use isolation = "separate" (the verifier then joins the live agent sandbox\'s '
            'network) or "shared", or drop `live`',
        )
    elif isolation is IsolationMode.SHARED and agent.continue_until_timeout:
        section.fail(
            "live",
            "`verifier.live = true` with `agent.continue_until_timeout = true` would let the "
            "agent's running processes watch interim verifier passes and use what they saw "
            "in the next turn",
            "Drop `live` (passes then freeze the agent's processes), or make the task single-shot",
        )
    return live


def _subtasks(section: Section, *, live_verifier: bool) -> tuple[SubtaskSpec, ...]:
    subtasks: list[SubtaskSpec] = []
    seen: set[str] = set()
    for entry in section.tables("subtasks", SUBTASK_KEYS):
        name = entry.string("name", None, required=True)
        if name is None:
            continue
        if name in seen:
            entry.fail(
                "name",
                f'subtask name "{name}" is declared twice in [[verifier.subtasks]]',
                "Give every subtask a unique name",
            )
            continue
        seen.add(name)
        live = entry.boolean("live", False)
        if live and not live_verifier:
            entry.fail(
                "live",
                f'subtask "{name}" grades the agent\'s running services, but the verifier '
                "does not run beside them (`verifier.live = true` is not set)",
                "Set `live = true` in [verifier], or drop `live` from the subtask if its "
                "tests only read files",
            )
        subtasks.append(
            SubtaskSpec(
                name=name,
                weight=entry.number("weight", 1.0),
                visibility=entry.choice("visibility", Visibility, Visibility.HIDDEN),
                description=_text(entry, "description"),
                live=live,
            )
        )
    return tuple(subtasks)
