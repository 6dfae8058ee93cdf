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

from lhtb.agent import Agent, AgentFactory
from lhtb.agents import agent_factory
from lhtb.episode import Episode, Outcome
from lhtb.errors import EpisodeFormatError, LhtbError
from lhtb.task import ContinueMode, Task

__all__ = ["AgentMaker", "AgentsArg", "BenchmarkAgent", "Slot", "plan_slots", "resolve_agents"]

AgentMaker: TypeAlias = Callable[[Task], Agent | AgentFactory]
"""Given a task, an agent for it or a zero-argument factory of agents."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_RETRY = re.compile(r"__retry(\d+)$")


def safe_name(name: str) -> str:
    """A name usable in a directory name: ``lhtb/climate`` -> ``lhtb-climate``."""
    return _UNSAFE.sub("-", name).strip("-") or "unnamed"


def retry_index(directory: Path) -> int:
    """The try number encoded in a slot directory's name (0 for the first try)."""
    match = _RETRY.search(directory.name)
    return int(match.group(1)) if match else 0


class _NamedFactory:
    """An agent factory whose ``name`` is what the episode record calls the agent."""

    def __init__(self, name: str, factory: AgentFactory) -> None:
        self.name = name
        self._factory = factory

    def __call__(self) -> Agent:
        return self._factory()


def _class_maker(cls: type) -> AgentMaker:
    try:
        wants_task = "task" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        wants_task = False
    if wants_task:
        return lambda task: lambda: cls(task=task)
    return lambda task: cls


@attrs.frozen
class BenchmarkAgent:
    """One agent of a sweep: its leaderboard name, how to make it, and its model.

    ``spec`` is set for agents given by name (``oracle``, ``module:Class``), so
    a sweep can check that they load before it starts.
    """

    name: str
    make: AgentMaker
    model: str | None = None
    spec: str | None = None

    @classmethod
    def from_spec(
        cls, spec: str, *, name: str | None = None, model: str | None = None
    ) -> BenchmarkAgent:
        """An agent given as ``oracle``, ``nop``, ``openai:MODEL`` or ``module:Class``."""
        return cls(name or spec, lambda task: agent_factory(spec, task), model, spec)

    def preflight(self, task: Task) -> None:
        """Load an agent given by spec (imports its module) without making one.

        Raises:
            AgentLoadError: the spec names nothing loadable.
        """
        if self.spec is not None:
            agent_factory(self.spec, task)

    def factory_for(self, task: Task) -> AgentFactory:
        """A named zero-argument factory for ``task``.

        Raises:
            LhtbError: the maker returned an agent instance for a ``restart`` task.
        """
        made = self.make(task)
        if isinstance(made, Agent):
            if task.agent.continue_mode is ContinueMode.RESTART:
                raise LhtbError(
                    f"agent {self.name!r} gave an instance for task {task.name!r}, whose "
                    "continue_mode 'restart' needs a fresh agent per turn",
                    fix="make the maker return a factory (e.g. the agent class)",
                )
            instance = made
            return _NamedFactory(self.name, lambda: instance)
        return _NamedFactory(self.name, made)


AgentsArg: TypeAlias = (
    "str | AgentMaker | BenchmarkAgent | Sequence[str | BenchmarkAgent] "
    "| Mapping[str, str | AgentMaker]"
)


def _one(value: Any, name: str | None = None) -> BenchmarkAgent:
    if isinstance(value, BenchmarkAgent):
        return value if name is None else attrs.evolve(value, name=name)
    if isinstance(value, str):
        return BenchmarkAgent.from_spec(value, name=name)
    if isinstance(value, type):
        label = name or str(getattr(value, "name", "") or value.__qualname__)
        return BenchmarkAgent(label, _class_maker(value))
    if callable(value):
        label = name or str(getattr(value, "name", "") or getattr(value, "__name__", "agent"))
        return BenchmarkAgent(label, value)
    raise LhtbError(f"{value!r} is not an agent spec, agent class, maker or BenchmarkAgent")


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
    """A record that a resume keeps: finished, not cancelled, not an infra error."""
    return (
        episode is not None
        and episode.finished
        and episode.outcome not in {Outcome.CANCELLED, Outcome.INFRA_ERROR}
    )
