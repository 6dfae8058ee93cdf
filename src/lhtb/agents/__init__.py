"""Agents: the Agent protocol and the Turn it gets, the agents that ship, the adapter kit.

Owns what an agent is to lhtb (:class:`Agent`, the :class:`Turn` each turn receives,
the :class:`Usage` it reports through :class:`UsageRecorder`), every form an agent
may be handed in (an object, a class, a factory, ``async def fn(turn)``, a spec
such as ``oracle`` or ``module:Class``: ``_forms``, ``_loading``), the agents that
ship (:class:`OracleAgent`, :class:`NopAgent`, the reference :class:`OpenAIAgent`),
and staging a task's solution for the oracle (``_solution``).

The adapter kit, for wrapping another agent framework: :func:`track_openai`
(usage, cost and an ATIF trajectory recorded from an OpenAI client),
:class:`TrajectoryRecorder` (writing ``trajectory.json`` yourself),
:func:`from_callable` and :class:`ModelPrice`.

May import: :mod:`lhtb.sandbox` (the :class:`~lhtb.sandbox.base.Sandbox` a turn
holds, archives), :mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`; not the
verifier or the episode loop.
"""

from lhtb.agents._callable import CallableAgent, from_callable
from lhtb.agents._context import ContextPolicy
from lhtb.agents._loading import agent_factory
from lhtb.agents._model_calls import ModelPrice, RetryPolicy
from lhtb.agents._protocol import Agent, AgentFactory, AgentLike, Turn
from lhtb.agents._tracking import ModelCallLog, track_openai
from lhtb.agents._trajectory import FILE_NAME as TRAJECTORY_FILE
from lhtb.agents._trajectory import SCHEMA_VERSION as ATIF_SCHEMA_VERSION
from lhtb.agents._trajectory import TrajectoryRecorder, atif_tool_call
from lhtb.agents._trajectory import schema_path as atif_schema_path
from lhtb.agents._usage import Usage, UsageRecorder
from lhtb.agents.nop import NopAgent
from lhtb.agents.openai_agent import OpenAIAgent
from lhtb.agents.oracle import OracleAgent
from lhtb.errors import ContextLengthError, ModelAuthError, ModelCallError

__all__ = [
    "ATIF_SCHEMA_VERSION",
    "TRAJECTORY_FILE",
    "Agent",
    "AgentFactory",
    "AgentLike",
    "CallableAgent",
    "ContextLengthError",
    "ContextPolicy",
    "ModelAuthError",
    "ModelCallError",
    "ModelCallLog",
    "ModelPrice",
    "NopAgent",
    "OpenAIAgent",
    "OracleAgent",
    "RetryPolicy",
    "TrajectoryRecorder",
    "Turn",
    "Usage",
    "UsageRecorder",
    "agent_factory",
    "atif_schema_path",
    "atif_tool_call",
    "from_callable",
    "track_openai",
]
