"""A task's sandbox outside an episode: open it, work in it, grade it.

:func:`open_sandbox` starts the same sandbox an episode gives its agent (same
image, limits, network and ``[agent].user``) and removes it when the block
ends, also on an error or a cancellation. The runner starts its agents'
sandboxes with :func:`start_task_sandbox`, so both are built one way.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from lhtb.sandbox.base import ManagedSandbox, SandboxBackend, SandboxSpec
from lhtb.sandbox.registry import resolve_backend
from lhtb.task._model import Task

__all__ = ["open_sandbox", "start_task_sandbox"]


async def start_task_sandbox(
    task: Task, backend: SandboxBackend, run_id: str
) -> tuple[str, ManagedSandbox]:
    """Prepare ``task``'s image and start an agent sandbox from it: ``(image, sandbox)``.

    Raises:
        SandboxError: the image could not be built or the sandbox did not start.
    """
    image = await backend.prepare(task)
    spec = SandboxSpec(
        image=image, task=task, run_id=run_id, network=task.environment.allow_internet
    )
    return image, await backend.start(spec)


@asynccontextmanager
async def open_sandbox(
    task: Task, *, backend: SandboxBackend | str | None = None, run_id: str | None = None
) -> AsyncIterator[ManagedSandbox]:
    """Start ``task``'s sandbox, built as an episode builds its agent's; remove it on exit.

    The sandbox is the harness's handle: its ``exec`` runs as root unless
    given ``user=``; ``sandbox.agent_view()`` is exactly what an agent gets
    (commands as ``[agent].user``). Grade its state with
    :meth:`lhtb.Verifier.grade`. ``run_id`` labels what it creates (default
    ``sandbox-<random>``), so ``lhtb cleanup --run-id`` finds it after a kill.

    Raises:
        BackendNotFoundError: no backend has that name.
        SandboxError: the image could not be built or the sandbox did not start.
    """
    resolved = resolve_backend(backend)
    _, sandbox = await start_task_sandbox(
        task, resolved, run_id or f"sandbox-{uuid.uuid4().hex[:12]}"
    )
    try:
        yield sandbox
    finally:
        with anyio.CancelScope(shield=True):
            await sandbox.destroy()
