"""Turning an agent spec (``oracle``, ``nop``, ``openai:MODEL`` or ``module:Class``) into a factory.

``openai:`` is reserved for the reference agent: ``openai:gpt-4o`` is
:class:`~lhtb.agents.OpenAIAgent` on model ``gpt-4o`` (endpoint and key from
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``), not an attribute of the ``openai`` module.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Any

from lhtb.agents._forms import AgentRecipe, describe, normalise_agent
from lhtb.errors import AgentLoadError
from lhtb.task._model import ContinueMode, Task

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


def load_agent(spec: str) -> Any:
    """What ``spec`` names: a class or factory (imports its module).

    Raises:
        AgentLoadError: the spec names nothing loadable.
    """
    return _builtin(spec) or _import(spec)


def spec_model(spec: str) -> str | None:
    """The model an ``openai:MODEL`` spec sets, else None."""
    if spec.startswith(OPENAI_PREFIX):
        return spec[len(OPENAI_PREFIX) :].strip() or None
    return None


def agent_factory(
    spec: str,
    task: Task,
    kwargs: Mapping[str, Any] | None = None,
    *,
    mode: ContinueMode | str | None = None,
) -> AgentRecipe:
    """The recipe for the agent ``spec`` working on ``task``, made with ``kwargs``.

    Classes or callables that take a ``task`` parameter receive the task.

    Raises:
        AgentLoadError: the spec names nothing loadable, or ``kwargs`` do not fit it.
    """
    target = load_agent(spec)
    if not callable(target):
        raise AgentLoadError(
            f"agent {spec!r} is {describe(target)}, not a class or factory",
            fix="name an agent class or a function that returns an agent",
        )
    return normalise_agent(target, task, mode, name=spec, model=spec_model(spec), kwargs=kwargs)
