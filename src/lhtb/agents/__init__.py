"""Agents that ship with lhtb, the adapter kit, and loading agents by name.

The adapter kit, for wrapping another agent framework: :func:`track_openai`
(usage, cost and an ATIF trajectory recorded from an OpenAI client),
:class:`TrajectoryRecorder` (writing ``trajectory.json`` yourself),
:func:`from_callable` and :class:`ModelPrice`.
"""

from lhtb.agents._callable import CallableAgent, from_callable
from lhtb.agents._context import ContextPolicy
from lhtb.agents._loading import agent_factory
from lhtb.agents._model_calls import ModelPrice, RetryPolicy
from lhtb.agents._tracking import ModelCallLog, track_openai
from lhtb.agents._trajectory import FILE_NAME as TRAJECTORY_FILE
from lhtb.agents._trajectory import SCHEMA_VERSION as ATIF_SCHEMA_VERSION
from lhtb.agents._trajectory import TrajectoryRecorder, atif_tool_call
from lhtb.agents._trajectory import schema_path as atif_schema_path
from lhtb.agents.nop import NopAgent
from lhtb.agents.openai_agent import OpenAIAgent
from lhtb.agents.oracle import OracleAgent
from lhtb.errors import ContextLengthError, ModelAuthError, ModelCallError

__all__ = [
    "ATIF_SCHEMA_VERSION",
    "TRAJECTORY_FILE",
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
    "agent_factory",
    "atif_schema_path",
    "atif_tool_call",
    "from_callable",
    "track_openai",
]
