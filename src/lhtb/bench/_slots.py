"""The episodes a benchmark run consists of, where each lives on disk, and what is done.

A *slot* is one (task, agent, attempt). Its first try runs in
``<task>__<agent>__<attempt>/``; each later try (an infrastructure retry, or a
rerun after an interruption) in ``<task>__<agent>__<attempt>__retry<N>/``.
Every try's directory is kept. The slot's record is its latest try.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import attrs

from lhtb.agents._forms import WHAT_WORKS, AgentRecipe, agent_model, describe, normalise_agent
from lhtb.agents._loading import load_agent, spec_model
from lhtb.agents._protocol import Agent, AgentFactory
from lhtb.analysis._leaderboard import retry_index
from lhtb.episode._record import Episode, Outcome
from lhtb.errors import AgentLoadError, EpisodeFormatError, LhtbError
from lhtb.task._model import Task

__all__ = ["AgentMaker", "AgentsArg", "BenchmarkAgent", "Slot", "plan_slots", "resolve_agents"]

AgentMaker: TypeAlias = Callable[[Task], Agent | AgentFactory]
"""Given a task, an agent for it or a zero-argument factory of agents (one accepted form)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A name usable in a directory name: ``lhtb/climate`` -> ``lhtb-climate``."""
    return _UNSAFE.sub("-", name).strip("-") or "unnamed"


def _fill_model(target: Any, model: str | None, kwargs: dict[str, Any]) -> str | None:
    """The model of an agent given by spec: its ``--ak model=``, else ``model`` when its
    constructor takes a ``model`` argument (which then gets it), else what it declares."""
    if "model" in kwargs:
        return str(kwargs["model"])
    try:
        takes_model = "model" in inspect.signature(target).parameters
    except (TypeError, ValueError):
        takes_model = False
    if model is not None and takes_model:
        kwargs["model"] = model
        return model
    declared = getattr(target, "model", None)
    return declared if isinstance(declared, str) and declared else None


@attrs.frozen
class BenchmarkAgent:
    """One agent of a sweep: its leaderboard name, the agent, and its model.

    ``make`` is the agent in any form :func:`lhtb.run_episode` accepts (a class,
    a factory, a ``task -> agent`` maker, an instance, an ``async def(turn)``).
    ``spec`` is set for agents given by name (``oracle``, ``module:Class``), so
    executors can load them by name elsewhere; ``kwargs`` go to the agent's
    class or factory (the CLI's ``--ak key=value``).
    """

    name: str
    make: Any
    model: str | None = None
    spec: str | None = None
    kwargs: Mapping[str, Any] = attrs.field(factory=dict)

    @classmethod
    def from_spec(
        cls,
        spec: str,
        *,
        name: str | None = None,
        model: str | None = None,
        kwargs: Mapping[str, Any] | None = None,
    ) -> BenchmarkAgent:
        """An agent given as ``oracle``, ``nop``, ``openai:MODEL`` or ``module:Class``.

        The model is the one ``openai:MODEL`` names; else ``model`` fills an agent
        whose constructor takes a ``model`` argument; an agent that uses no model
        (``oracle``, ``nop``) gets none.

        Raises:
            AgentLoadError: the spec names nothing loadable.
        """
        target = load_agent(spec)
        arguments = dict(kwargs or {})
        chosen = spec_model(spec) or _fill_model(target, model, arguments)
        return cls(name or spec, target, chosen, spec, arguments)

    def preflight(self, task: Task) -> None:
        """Check, without making one, that the agent can be made for ``task``.

        Raises:
            AgentLoadError: it is not an accepted form, or its arguments do not fit.
        """
        self.recipe(task)

    def recipe(self, task: Task) -> AgentRecipe:
        """How to make this agent for ``task`` (named as the sweep names it).

        Raises:
            AgentLoadError: see :meth:`preflight`, or an instance for a ``restart`` task.
        """
        return normalise_agent(
            self.make, task, name=self.name, model=self.model, kwargs=self.kwargs
        )


AgentsArg: TypeAlias = (
    "str | AgentMaker | BenchmarkAgent | Sequence[str | BenchmarkAgent] "
    "| Mapping[str, str | AgentMaker]"
)


def _one(value: Any, name: str | None = None) -> BenchmarkAgent:
    if isinstance(value, BenchmarkAgent):
        return value if name is None else attrs.evolve(value, name=name)
    if isinstance(value, str):
        return BenchmarkAgent.from_spec(value, name=name)
    if isinstance(value, type) or callable(value) or hasattr(value, "run"):
        label = name or str(
            getattr(value, "name", "")
            or getattr(value, "__qualname__", "")
            or type(value).__qualname__
        )
        return BenchmarkAgent(label, value, agent_model(value))
    raise AgentLoadError(
        f"{describe(value)} ({value!r}) is not an agent",
        fix=f"{WHAT_WORKS}; or an agent spec such as 'oracle' or 'module:Class'",
    )


def resolve_agents(agents: Any) -> list[BenchmarkAgent]:
    """Normalise what :func:`lhtb.run_benchmark` accepts as ``agents``.

    Raises:
        LhtbError: no agents, two agents with the same name, or names that
            collide once made safe for directory names.
    """
    if isinstance(agents, Mapping):
        resolved = [_one(value, str(key)) for key, value in agents.items()]
    elif isinstance(agents, Sequence) and not isinstance(agents, str):
        resolved = [_one(value) for value in agents]
    else:
        resolved = [_one(agents)]
    if not resolved:
        raise LhtbError("no agents to run", fix="give at least one agent")
    seen: dict[str, str] = {}
    for agent in resolved:
        key = safe_name(agent.name)
        if key in seen:
            raise LhtbError(
                f"agents {seen[key]!r} and {agent.name!r} share the directory name {key!r}",
                fix="give each agent a distinct name (pass a mapping {name: agent})",
            )
        seen[key] = agent.name
    return resolved


@attrs.frozen
class Slot:
    """One (task, agent, attempt) of a sweep."""

    task: Task
    agent: BenchmarkAgent
    attempt: int

    @property
    def key(self) -> str:
        """The directory name of the first try."""
        return f"{safe_name(self.task.name)}__{safe_name(self.agent.name)}__{self.attempt}"

    @property
    def label(self) -> str:
        """How progress displays name the slot."""
        return f"{self.task.name} / {self.agent.name} #{self.attempt}"

    def directory(self, root: Path, retry: int) -> Path:
        """The directory of try ``retry`` (0 is the first)."""
        return root / (self.key if retry == 0 else f"{self.key}__retry{retry}")

    def tries(self, root: Path) -> list[tuple[int, Path]]:
        """Existing try directories, oldest first."""
        found = [(0, root / self.key)] if (root / self.key).is_dir() else []
        found.extend((retry_index(p), p) for p in root.glob(f"{self.key}__retry*") if p.is_dir())
        return sorted((n, p) for n, p in found if n == 0 or p.name.endswith(f"__retry{n}"))


def plan_slots(
    tasks: Sequence[Task], agents: Sequence[BenchmarkAgent], attempts: int
) -> list[Slot]:
    """Every slot, attempts outermost and agents innermost (spreads provider load).

    Raises:
        LhtbError: two tasks share a name (or a directory name).
    """
    names: dict[str, str] = {}
    for task in tasks:
        key = safe_name(task.name)
        if key in names:
            raise LhtbError(
                f"tasks {names[key]!r} and {task.name!r} share the directory name {key!r}",
                fix="give every task in a sweep a distinct name",
            )
        names[key] = task.name
    return [
        Slot(task, agent, attempt)
        for attempt in range(1, attempts + 1)
        for task in tasks
        for agent in agents
    ]


def load_record(directory: Path) -> Episode | None:
    """The episode record in a try directory, or None when missing or unreadable."""
    path = directory / "episode.json"
    if not path.is_file():
        return None
    try:
        return Episode.load(path)
    except EpisodeFormatError:
        return None


def is_complete(episode: Episode | None) -> bool:
    """A record that a resume keeps: finished, not cancelled, not an infra or harness error."""
    return (
        episode is not None
        and episode.finished
        and episode.outcome not in {Outcome.CANCELLED, Outcome.INFRA_ERROR, Outcome.HARNESS_ERROR}
    )
