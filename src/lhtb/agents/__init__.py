"""Agents that ship with lhtb, adapters, and loading agents by name."""

from lhtb.agents._callable import CallableAgent, from_callable
from lhtb.agents._context import ContextPolicy
from lhtb.agents._loading import agent_factory
from lhtb.agents._model_calls import (
    ContextLengthError,
    ModelAuthError,
    ModelCallError,
    ModelPrice,
    RetryPolicy,
)
from lhtb.agents._trajectory import SCHEMA_VERSION as ATIF_SCHEMA_VERSION
from lhtb.agents._trajectory import schema_path as atif_schema_path
from lhtb.agents.nop import NopAgent
from lhtb.agents.openai_agent import OpenAIAgent
from lhtb.agents.oracle import OracleAgent

__all__ = [
    "ATIF_SCHEMA_VERSION",
    "CallableAgent",
    "ContextLengthError",
    "ContextPolicy",
    "ModelAuthError",
    "ModelCallError",
    "ModelPrice",
    "NopAgent",
    "OpenAIAgent",
    "OracleAgent",
    "RetryPolicy",
    "agent_factory",
    "atif_schema_path",
    "from_callable",
]
