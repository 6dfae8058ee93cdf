"""Sandboxes and the backends that provide them."""

from lhtb.sandbox.base import (
    DEFAULT_OUTPUT_LIMIT,
    ExecResult,
    ManagedSandbox,
    Sandbox,
    SandboxBackend,
    SandboxSpec,
    Terminal,
)

__all__ = [
    "DEFAULT_OUTPUT_LIMIT",
    "ExecResult",
    "ManagedSandbox",
    "Sandbox",
    "SandboxBackend",
    "SandboxSpec",
    "Terminal",
]
