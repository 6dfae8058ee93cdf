"""Sandboxes and the backends that provide them.

Owns the sandbox contract and everything backend-neutral around it:

- ``base``: :class:`Sandbox` (what an agent may do), :class:`ManagedSandbox` and
  :class:`SandboxBackend` (what a backend provides), :class:`SandboxSpec`, :class:`Terminal`.
- ``registry``: backends by name (the built-ins and the ``lhtb.backends`` entry points).
- ``conformance``: the backend contract as pytest tests, for any backend.
- ``archive``: tar archives that cross the sandbox boundary (validation, safe repacking).
- ``_environment``, ``_healthcheck``, ``_scripts``, ``_link_walk``: what both container
  backends share (the environment's compose file and hash, healthchecks, shell snippets).
- ``_task_sandbox``: a task's sandbox outside an episode (:func:`lhtb.open_sandbox`).
- ``host/``: host-side helpers; ``terminal/``: the shared terminal screen;
  ``docker/`` and ``local/``: the two built-in backends.

May import: :mod:`lhtb.task`, :mod:`lhtb.images` (the Docker backend's base images),
:mod:`lhtb.errors`, :mod:`lhtb._util`. Inside, the core (``base``, ``archive``, the
shared helpers) is below ``host/`` and ``terminal/``, those below the backends, and the
backends below ``registry``, ``conformance`` and ``_task_sandbox``.
"""

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
