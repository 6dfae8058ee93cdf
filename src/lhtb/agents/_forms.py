"""Every form in which an agent may be handed to lhtb, turned into one :class:`AgentRecipe`.

Accepted everywhere an agent is (``run_episode``, ``run_benchmark``, the executors):

* an agent instance (an object with ``async def run(self, turn)``);
* an agent class (made with no arguments, or ``task=`` when its constructor takes one);
* a zero-argument factory (``lambda: MyAgent(model="m")``);
* a ``task -> agent`` factory (``lambda task: MyAgent(task.name)``), which may also
  return an agent class or a zero-argument factory;
* an ``async def agent(turn)`` function.

Forms that can make a fresh agent are called once per episode in
``same_conversation`` mode and once per turn in ``restart`` mode. Problems visible
without running anything (a wrong type, a constructor that needs arguments, an
instance for ``restart`` mode) raise :class:`~lhtb.errors.AgentLoadError` at once;
a factory that raises or returns no agent raises :class:`~lhtb.errors.AgentBuildError`
when the agent is made.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from lhtb.agents._protocol import Agent
from lhtb.errors import AgentBuildError, AgentLoadError
from lhtb.task._model import ContinueMode, Task

__all__ = [
    "WHAT_WORKS",
    "AgentRecipe",
    "agent_model",
    "describe",
    "is_async_callable",
    "normalise_agent",
]

WHAT_WORKS = (
    "pass an agent instance, an agent class, a factory (`lambda: MyAgent(...)` or "
    "`lambda task: MyAgent(...)`), or an `async def agent(turn)` function"
)


def describe(value: object) -> str:
    """How error messages name what was passed."""
    if isinstance(value, type):
        return f"class {value.__qualname__}"
    if inspect.isfunction(value) or inspect.ismethod(value):
        kind = "async function" if inspect.iscoroutinefunction(value) else "function"
        return f"{kind} {value.__qualname__}"
    if callable(value) and not _has_async_run(value):
        return f"callable {value!r}"
    return f"{type(value).__qualname__} instance"


def _has_async_run(value: object) -> bool:
    run = getattr(value, "run", None)
    return callable(run) and inspect.iscoroutinefunction(run)


def is_async_callable(value: object) -> bool:
    """An ``async def`` function, or an object whose ``__call__`` is one."""
    if inspect.iscoroutinefunction(value):
        return True
    method = inspect.getattr_static(type(value), "__call__", None)  # an object with async __call__
    return inspect.iscoroutinefunction(method)


def _explicit_name(value: object) -> str | None:
    name = getattr(value, "name", None)
    return name if isinstance(name, str) and name else None


def agent_model(value: object) -> str | None:
    """The model an agent (or its class or factory) declares in a ``model`` attribute."""
    model = getattr(value, "model", None)
    return model if isinstance(model, str) and model else None


@attrs.frozen
class AgentRecipe:
    """One agent, in whatever form it was given, ready to make agents for one task.

    ``name`` and ``model`` are what the episode record calls it; ``name_given``
    is false when the name is only a function's or class's name (a made agent's
    own ``name`` attribute then wins). ``fresh`` is true when :meth:`build` makes
    a new agent on every call.
    """

    name: str
    model: str | None
    make: Callable[[], Any]
    source: str
    fresh: bool
    name_given: bool = True

    def __call__(self) -> Agent:
        """Make one agent (a recipe is also a zero-argument factory)."""
        return self.build()

    def build(self) -> Agent:
        """Make one agent.

        Raises:
            AgentBuildError: the class or factory raised, or returned no agent.
        """
        try:
            made = self.make()
        except AgentLoadError:
            raise
        except Exception as exc:
            raise AgentBuildError(
                f"making the agent from {self.source} failed: {type(exc).__name__}: {exc}",
                fix="fix the constructor or factory (the episode did not start)",
            ) from exc
        return _as_agent(made, self.source)


def _as_agent(made: object, source: str) -> Agent:
    if _has_async_run(made) and not isinstance(made, type):
        return made  # type: ignore[return-value]
    if is_async_callable(made):
        from lhtb.agents._callable import CallableAgent  # noqa: PLC0415 - avoid a cycle

        return CallableAgent(made)  # type: ignore[arg-type]
    raise AgentBuildError(
        f"{source} returned {describe(made)}, which is not an agent",
        fix="return an object with `async def run(self, turn) -> None`",
    )


def _call_plan(
    target: Callable[..., Any], task: Task, kwargs: Mapping[str, Any], *, allow_task_arg: bool
) -> Callable[[], Any]:
    """How to call ``target``: with ``kwargs``, plus the task when it asks for one.

    Raises:
        AgentLoadError: the call cannot be bound (missing or unknown arguments).
    """
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # a builtin without a signature: call it as it is
        return lambda: target(**kwargs)
    params = signature.parameters
    if "task" in params and "task" not in kwargs:
        with_task = {**kwargs, "task": task}
        if _binds(signature, (), with_task):
            return lambda: target(**with_task)
    if _binds(signature, (), kwargs):
        return lambda: target(**kwargs)
    if allow_task_arg and _binds(signature, (task,), kwargs):
        return lambda: target(task, **kwargs)
    missing = [
        name
        for name, p in params.items()
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY)
        and name not in kwargs
        and name != "task"
    ]
    unknown = [k for k in kwargs if k not in params] if not _has_var_keyword(signature) else []
    accepted = [n for n in params if n not in ("self", "task")]
    if unknown:
        raise AgentLoadError(
            f"{describe(target)} takes no argument(s) {', '.join(unknown)}",
            fix=f"it takes: {', '.join(accepted) or 'nothing'}; check the names given "
            "(`--ak KEY=VALUE` goes to every --agent of the run)",
        )
    what = f"needs argument(s) {', '.join(missing)}" if missing else "cannot be called"
    raise AgentLoadError(
        f"{describe(target)} {what}",
        fix="give them: `lambda: Agent(x=...)` in Python, `--ak x=VALUE` on the command line; "
        "a factory may take no argument or the task",
    )


def _binds(signature: inspect.Signature, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> bool:
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _has_var_keyword(signature: inspect.Signature) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())


def normalise_agent(
    agent: object,
    task: Task,
    mode: ContinueMode | str | None = None,
    *,
    name: str | None = None,
    model: str | None = None,
    kwargs: Mapping[str, Any] | None = None,
) -> AgentRecipe:
    """The recipe for ``agent`` (any accepted form) working on ``task``.

    ``mode`` defaults to the task's continue mode; ``kwargs`` go to an agent
    class or factory (the CLI's ``--ak``); ``name`` and ``model`` override
    what the agent says about itself.

    Raises:
        AgentLoadError: ``agent`` is not an accepted form, cannot be called with
            these arguments, or is an instance while ``mode`` is ``restart``.
    """
    if isinstance(agent, AgentRecipe):
        return agent
    continue_mode = ContinueMode(mode or task.agent.continue_mode)
    arguments = dict(kwargs or {})
    source = describe(agent)
    given = name or _explicit_name(agent)
    label = given or _fallback_name(agent)
    chosen_model = model or agent_model(agent)
    if isinstance(agent, type):
        if not _has_async_run(agent):
            raise AgentLoadError(
                f"{source} has no `async def run(self, turn)` method", fix=WHAT_WORKS
            )
        make = _call_plan(agent, task, arguments, allow_task_arg=False)
        return AgentRecipe(label, chosen_model, make, source, True, given is not None)
    if _has_async_run(agent):
        if arguments:
            raise AgentLoadError(
                f"agent arguments {sorted(arguments)} were given for an agent {source}",
                fix="pass the class instead, so lhtb can make it with them",
            )
        if continue_mode is ContinueMode.RESTART:
            raise AgentLoadError(
                f"continue_mode 'restart' makes a fresh agent every turn, but {source} "
                "was passed (one agent)",
                fix="pass its class or a factory (`lambda: MyAgent(...)`) instead",
            )
        return AgentRecipe(label, chosen_model, lambda: agent, source, False, True)
    if is_async_callable(agent):
        wrapped = _as_agent(agent, source)
        return AgentRecipe(label, chosen_model, lambda: wrapped, source, False, given is not None)
    if callable(agent):
        if _takes_turn(agent):
            raise AgentLoadError(
                f"{source} takes a turn but is not async",
                fix="define it with `async def agent(turn) -> None`",
            )
        call = _call_plan(agent, task, arguments, allow_task_arg=True)

        def make() -> Any:
            made = call()
            if isinstance(made, type) or (
                callable(made) and not _has_async_run(made) and not is_async_callable(made)
            ):  # a maker that returned a class or a factory: make the agent from that
                return normalise_agent(made, task, ContinueMode.SAME_CONVERSATION).make()
            return made

        return AgentRecipe(label, chosen_model, make, source, True, given is not None)
    raise AgentLoadError(f"{source} ({agent!r}) is not an agent", fix=WHAT_WORKS)


def _takes_turn(fn: object) -> bool:
    try:
        return "turn" in inspect.signature(fn).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _fallback_name(agent: object) -> str:
    if isinstance(agent, type):
        return agent.__qualname__
    qualname = getattr(agent, "__qualname__", None)
    if isinstance(qualname, str) and qualname != "<lambda>":
        return qualname
    return type(agent).__qualname__ if _has_async_run(agent) else "agent"
