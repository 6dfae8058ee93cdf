"""Turning an agent spec (``oracle``, ``nop``, ``openai:MODEL`` or ``module:Class``) into a factory.

``openai:`` is reserved for the reference agent: ``openai:gpt-4o`` is
:class:`~lhtb.agents.OpenAIAgent` on model ``gpt-4o`` (endpoint and key from
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``), not an attribute of the ``openai`` module.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any

from lhtb.agent import Agent, AgentFactory
from lhtb.errors import AgentLoadError
from lhtb.task import Task

OPENAI_PREFIX = "openai:"


def _openai(spec: str) -> Any:
    model = spec[len(OPENAI_PREFIX) :].strip()
    if not model:
        raise AgentLoadError(
            f"agent {spec!r} names no model", fix="use e.g. openai:gpt-4o or openai:my-vllm-model"
        )
    from lhtb.agents.openai_agent import OpenAIAgent  # noqa: PLC0415

    return functools.partial(OpenAIAgent, model)


def _builtin(name: str) -> Any:
    if name.startswith(OPENAI_PREFIX):
        return _openai(name)
    if name == "oracle":
        from lhtb.agents.oracle import OracleAgent  # noqa: PLC0415

        return OracleAgent
    if name == "nop":
        from lhtb.agents.nop import NopAgent  # noqa: PLC0415

        return NopAgent
    return None


def _import(spec: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise AgentLoadError(
            f"agent {spec!r} is not a known name or a 'module:Class' reference",
            fix="use oracle, nop, openai:MODEL, or e.g. my_pkg.agents:MyAgent",
        )
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentLoadError(
            f"cannot import module {module_name!r}: {exc}",
            fix="install the package or add its directory to PYTHONPATH",
        ) from exc
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AgentLoadError(
                f"module {module_name!r} has no attribute {attr!r}",
                fix="check the name after the colon",
            ) from None
    return target


def agent_factory(spec: str, task: Task) -> AgentFactory:
    """A zero-argument factory for the agent ``spec`` working on ``task``.

    Classes or callables that take a ``task`` parameter receive the task.
    """
    target = _builtin(spec) or _import(spec)
    if not callable(target):
        raise AgentLoadError(f"agent {spec!r} is not a class or callable")
    try:
        wants_task = "task" in inspect.signature(target).parameters
    except (TypeError, ValueError):
        wants_task = False

    return _SpecFactory(spec, target, task if wants_task else None)


class _SpecFactory:
    """Makes agents from a loaded spec; ``name`` is the spec, for the episode record."""

    def __init__(self, name: str, target: Any, task: Task | None) -> None:
        self.name = name
        self._target = target
        self._task = task

    def __call__(self) -> Agent:
        agent = self._target() if self._task is None else self._target(task=self._task)
        if not isinstance(agent, Agent):
            raise AgentLoadError(
                f"{self.name!r} made {type(agent).__name__}, which has no async run(turn) method",
                fix="implement lhtb.Agent: async def run(self, turn) -> None",
            )
        return agent
