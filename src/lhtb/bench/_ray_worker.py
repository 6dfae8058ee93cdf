"""The worker half of the Ray executor: what runs on a cluster node for one episode.

Imported by Ray on the workers by module path, so it stays importable without
``ray`` and imports nothing heavy until an episode runs.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import uuid
from pathlib import Path
from typing import Any

import anyio

from lhtb.bench._executor import EpisodeJob, failure_record, run_job
from lhtb.bench._slots import BenchmarkAgent, safe_name
from lhtb.episode._record import Outcome
from lhtb.errors import AgentLoadError
from lhtb.task._model import Task

__all__ = [
    "SCRATCH_ENV",
    "backend_name_on_worker",
    "cleanup_on_worker",
    "episode_on_worker",
    "pack",
    "unpack",
]

SCRATCH_ENV = "LHTB_RAY_SCRATCH"
"""Where workers keep unpacked tasks and running episodes (default: the temp dir)."""


def _scratch() -> Path:
    return Path(os.environ.get(SCRATCH_ENV) or tempfile.gettempdir()) / "lhtb-ray"


def pack(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(directory, arcname=".")
    return buffer.getvalue()


def unpack(archive: bytes, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")


def _task_on_worker(shipped: Task | tuple[bytes, str]) -> Task:
    """The task, unpacked once per node (by checksum) when it came as an archive."""
    if isinstance(shipped, Task):
        return shipped
    from lhtb.task._loader import load_task  # noqa: PLC0415 - keep the driver import light

    archive, checksum = shipped
    target = _scratch() / "tasks" / safe_name(checksum)
    if not target.is_dir():
        staging = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}")
        unpack(archive, staging)
        try:
            staging.rename(target)
        except OSError:  # another worker on this node unpacked it first
            shutil.rmtree(staging, ignore_errors=True)
    return load_task(target)


ShippedAgent = BenchmarkAgent | tuple[str, str, str | None, dict[str, Any]]
"""A pickled agent, or one given by spec: (name, spec, model, constructor arguments)."""


def _agent_on_worker(shipped: ShippedAgent) -> BenchmarkAgent:
    if isinstance(shipped, BenchmarkAgent):
        return shipped
    name, spec, model, kwargs = shipped
    return BenchmarkAgent.from_spec(spec, name=name, model=model, kwargs=kwargs)


def _ignore_event(event: str, fields: dict[str, Any]) -> None:
    del event, fields


def episode_on_worker(
    task: Task | tuple[bytes, str],
    agent: ShippedAgent,
    attempt: int,
    run_id: str,
    options: dict[str, Any],
    backend_name: str,
    try_name: str,
) -> bytes:
    """Run one try on this node; the episode directory as a gzipped tar."""
    from lhtb.sandbox.registry import resolve_backend  # noqa: PLC0415

    directory = _scratch() / "episodes" / run_id / f"{try_name}.{uuid.uuid4().hex[:8]}"
    try:
        the_task = _task_on_worker(task)
        try:
            the_agent, load_error = _agent_on_worker(agent), None
        except AgentLoadError as exc:  # not importable on this node: the agent's problem
            assert isinstance(agent, tuple)
            the_agent, load_error = BenchmarkAgent(agent[0], None, agent[2], agent[1]), exc
        job = EpisodeJob(the_task, the_agent, attempt, directory, run_id, options)
        expected = task[1] if isinstance(task, tuple) else the_task.checksum
        if load_error is not None:
            failure_record(job, backend_name, Outcome.AGENT_ERROR, str(load_error), can_retry=False)
        elif the_task.checksum != expected:
            failure_record(
                job,
                backend_name,
                Outcome.INFRA_ERROR,
                f"the task arrived changed (checksum {the_task.checksum}, expected {expected})",
            )
        else:
            backend = resolve_backend(backend_name)
            anyio.run(run_job, job, backend, _ignore_event)
        return pack(directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def cleanup_on_worker(backend_name: str, run_id: str) -> int:
    """Remove the run's sandboxes from this node's backend."""
    from lhtb.sandbox.registry import resolve_backend  # noqa: PLC0415

    shutil.rmtree(_scratch() / "episodes" / run_id, ignore_errors=True)
    return int(anyio.run(resolve_backend(backend_name).cleanup, run_id))


def backend_name_on_worker() -> str:
    """What ``auto`` resolves to on this node."""
    from lhtb.sandbox.registry import auto_backend_name  # noqa: PLC0415

    return auto_backend_name()
