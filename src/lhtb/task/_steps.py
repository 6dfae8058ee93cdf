"""The ``[[steps]]`` of a Harbor multi-step ``task.toml``.

:func:`parse_steps` validates each step's keys; the loader then attaches the
step's files (``steps/<name>/instruction.md``, ``tests/``, ``solution/``,
``workdir/``). Harbor step features lhtb does not run raise
:class:`~lhtb.errors.UnsupportedFeatureError` at once, so that a dataset can
skip the task.
"""

from __future__ import annotations

import re

from lhtb.task._model import AgentConfig, IsolationMode, Step, VerifierConfig
from lhtb.task._toml_lines import dotted
from lhtb.task._toml_reader import Section, describe

__all__ = ["STEP_KEYS", "check_step_task", "parse_steps"]

STEP_KEYS = frozenset({"name", "agent", "verifier", "min_reward", "healthcheck", "artifacts"})
STEP_AGENT_KEYS = frozenset({"timeout_sec", "user"})
STEP_VERIFIER_KEYS = frozenset({"timeout_sec", "env", "user", "environment_mode", "environment"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_FIX = "Run this task with Harbor, or drop the step feature lhtb does not run"


def parse_steps(root: Section) -> tuple[Step, ...]:
    """The validated ``[[steps]]`` (problems go to the reader), without their files.

    Raises:
        UnsupportedFeatureError: a step uses a Harbor feature lhtb does not run.
    """
    steps: list[Step] = []
    seen: set[str] = set()
    for entry in root.tables("steps", STEP_KEYS):
        for key in ("healthcheck", "artifacts"):
            if entry.data.get(key):
                entry.unsupported(key, f"per-step `{key}`", _FIX)
        name = entry.string("name", None, required=True)
        if name is not None and (not _NAME.match(name) or name in seen):
            what = "is declared twice" if name in seen else "is not a directory name"
            entry.fail("name", f'step name "{name}" {what}', "Give every step a unique name")
            name = None
        if name is None:
            continue
        seen.add(name)
        agent = entry.table("agent", STEP_AGENT_KEYS)
        verifier = entry.table("verifier", STEP_VERIFIER_KEYS)
        if verifier is not None:
            if verifier.has("environment"):
                verifier.unsupported("environment", "a per-step verifier environment", _FIX)
            if verifier.data.get("environment_mode", "shared") != "shared":
                verifier.unsupported("environment_mode", "a separate per-step verifier", _FIX)
        steps.append(
            Step(
                name=name,
                agent_timeout_sec=agent.number("timeout_sec", None) if agent else None,
                agent_user=agent.user("user") if agent else None,
                verifier_timeout_sec=verifier.number("timeout_sec", None) if verifier else None,
                verifier_env=verifier.env("env") if verifier else {},
                verifier_user=verifier.user("user") if verifier else None,
                min_reward=_min_reward(entry),
            )
        )
    if root.has("steps") and not steps and not root.reader.errors:
        root.fail("steps", "`steps` holds no step", 'Add [[steps]] entries with name = "..."')
    return tuple(steps)


def check_step_task(
    root: Section, steps: tuple[Step, ...], agent: AgentConfig, verifier: VerifierConfig
) -> None:
    """Refuse task settings lhtb cannot combine with steps.

    Raises:
        UnsupportedFeatureError: the task continues until timeout, does not verify
            in the agent's sandbox, or asks for checkpoint grading.
    """
    for index, step in enumerate(steps):
        if step.agent_user is not None and step.agent_user != agent.user:
            where = root.reader.section({}, ("steps", index, "agent"), ())
            where.unsupported("user", "a step agent user other than the task's", _FIX)
    if agent.continue_until_timeout:
        root.unsupported("steps", "multi-step tasks that continue until timeout", _FIX)
    if verifier.isolation is not IsolationMode.SHARED:
        root.unsupported("steps", f'multi-step tasks with isolation "{verifier.isolation}"', _FIX)
    if verifier.checkpoint_interval_sec is not None:
        root.unsupported("steps", "checkpoint grading of multi-step tasks", _FIX)


def _min_reward(entry: Section) -> float | None:
    value = entry.data.get("min_reward")
    if isinstance(value, dict):
        if set(value) != {"reward"}:
            entry.unsupported("min_reward", "`min_reward` on reward keys other than `reward`", _FIX)
        sub = entry.table("min_reward", {"reward"})
        return sub.number("reward", None, inclusive=True, minimum=0.0) if sub else None
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        name = dotted(entry.key("min_reward"))
        entry.fail("min_reward", f"`{name}` must be a number, got {describe(value)}")
        return None
    return entry.number("min_reward", None, inclusive=True, minimum=0.0)
