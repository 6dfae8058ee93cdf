"""Test helpers for lhtb and for third-party agents, backends and tools.

* :class:`FakeBackend`: a real :class:`~lhtb.sandbox.base.SandboxBackend` whose
  sandboxes live in memory and whose verifier results are scripted per pass, so
  whole episodes (turns, passes, budgets, outcomes, records) run in milliseconds
  without Docker or root.
* :class:`VirtualClockLoop` / :func:`virtual_clock_backend`: an asyncio loop on
  a virtual clock that jumps to the next timer whenever it is idle, so budgets
  and deadlines are exact and a loaded machine cannot change a result.
* :func:`fake_task`: a minimal task to run on the fake backend.

See ``docs/testing.md``.

May import: the sandbox core (:mod:`lhtb.sandbox.base`, :mod:`lhtb.sandbox.archive`),
:mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`: it is a backend like the
built-in ones, and nothing in lhtb imports it.
"""

from lhtb.testing._fake_backend import (
    OPERATIONS,
    FakeBackend,
    FakeCall,
    FakeSandbox,
    ScriptedPass,
)
from lhtb.testing._fake_task import fake_task
from lhtb.testing._virtual_clock import VirtualClockLoop, virtual_clock_backend

__all__ = [
    "OPERATIONS",
    "FakeBackend",
    "FakeCall",
    "FakeSandbox",
    "ScriptedPass",
    "VirtualClockLoop",
    "fake_task",
    "virtual_clock_backend",
]
