"""Agents that ship with lhtb, and loading agents by name."""

from lhtb.agents._loading import agent_factory
from lhtb.agents.nop import NopAgent
from lhtb.agents.oracle import OracleAgent

__all__ = ["NopAgent", "OracleAgent", "agent_factory"]
