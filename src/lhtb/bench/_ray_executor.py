"""Run a benchmark's episodes on a Ray cluster: ``run_benchmark(..., executor=RayExecutor())``.

* Each try is one Ray task that holds one *sandbox slot*: the custom resource
  ``lhtb_sandbox`` (``ray start --resources='{"lhtb_sandbox": 4}'``). Ray places
  the tasks (spread over the nodes); lhtb never counts CPUs or memory itself.
  Ray never retries a task: the sweep retries infrastructure errors itself, so
  every try keeps its own directory, exactly as in a local run.
* Task directories travel through Ray's object store (one tar per task, put
  once) and are unpacked once per node, keyed by checksum. Agents given by
  spec (``oracle``, ``module:Class``) travel as the spec and are loaded on the
  worker; other agents are pickled (cloudpickle) and must be picklable.
* A worker runs the episode into a scratch directory and returns it as a tar;
  the driver unpacks it into the run directory as it lands, so resume and the
  leaderboard read it like a local episode. A worker or node that dies turns
  the try into an ``infra_error`` record, which the sweep retries wherever Ray
  places it next.
* Secrets reach workers only through the Ray runtime environment
  (``env_vars``, ``forward_env``) or the nodes' own environment; nothing about
  them is written into the run directory.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import attrs

from lhtb._util.log import get_logger
from lhtb.bench._executor import EpisodeExecutor, EpisodeJob, EventHook, failure_record
from lhtb.bench._ray_worker import (
    backend_name_on_worker,
    cleanup_on_worker,
    episode_on_worker,
    pack,
    unpack,
)
from lhtb.bench._slots import BenchmarkAgent, load_record
from lhtb.episode._record import Episode, Outcome
from lhtb.errors import LhtbError, RayNotInstalledError
from lhtb.sandbox.base import SandboxBackend
from lhtb.task._model import Task

__all__ = ["DEFAULT_FORWARD_ENV", "SLOT_RESOURCE", "RayExecutor"]

SLOT_RESOURCE = "lhtb_sandbox"
"""The Ray custom resource a node advertises once per sandbox it can run."""
DEFAULT_FORWARD_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
)
"""Driver environment variables copied into the workers' runtime environment when set."""
CONNECT_TIMEOUT_SEC = 120.0
"""How long probing the cluster (backend choice, cleanup on every node) may take."""

log = get_logger(__name__)


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        RayNotInstalledError: it is not installed.
    """
    try:
        import ray  # noqa: PLC0415 - optional dependency
    except ImportError as exc:
        raise RayNotInstalledError from exc
    return ray


# -- driver side ---------------------------------------------------------------------------------


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


@attrs.define
class RayExecutor(EpisodeExecutor):
    """Runs each episode as a Ray task on a node that has a free sandbox slot.

    ``address`` is what :func:`ray.init` takes: ``None`` means ``$RAY_ADDRESS``,
    else the cluster running on this machine (``"auto"``); ``"host:6379"``
    joins as a driver on a cluster node; ``"ray://host:10001"`` connects
    through Ray Client (needs ``ray[client]``). When this process already
    called :func:`ray.init`, that connection is used and left open (its worker
    processes stay warm across sweeps). ``env_vars`` and the variables
    named in ``forward_env`` (copied from this process when set) form the
    workers' environment, for API keys. ``num_cpus`` is what each episode's
    Ray task reserves besides its slot (its sandbox's CPUs are the slot's).
    ``runtime_env`` is merged into every task's runtime environment (e.g.
    ``{"pip": ["lhtb[ray]==0.1.0"]}``).

    Raises (from :func:`lhtb.run_benchmark`):
        RayNotInstalledError: ``ray`` is not installed.
        LhtbError: no node offers a sandbox slot, or an agent cannot be pickled.
    """

    address: str | None = None
    env_vars: Mapping[str, str] = attrs.field(factory=dict)
    forward_env: Sequence[str] = DEFAULT_FORWARD_ENV
    slot_resource: str = SLOT_RESOURCE
    num_cpus: float = 0.0
    runtime_env: Mapping[str, Any] = attrs.field(factory=dict)
    namespace: str = "lhtb"
    name: str = attrs.field(default="ray", init=False)
    _ray: Any = attrs.field(default=None, init=False)
    _owns_connection: bool = attrs.field(default=False, init=False)
    _backend_name: str = attrs.field(default="", init=False)
    _tasks: dict[str, Any] = attrs.field(factory=dict, init=False)
    _agents: dict[str, Any] = attrs.field(factory=dict, init=False)
    _waiters: anyio.CapacityLimiter | None = attrs.field(default=None, init=False)
    _remote: dict[str, Any] = attrs.field(factory=dict, init=False)

    def __attrs_post_init__(self) -> None:
        import_ray()  # fail at construction, with the install hint

    def worker_env(self) -> dict[str, str]:
        """The environment variables every episode's Ray task gets."""
        forwarded = {k: os.environ[k] for k in self.forward_env if k in os.environ}
        return {**forwarded, **self.env_vars}

    def _options(self, **extra: Any) -> dict[str, Any]:
        runtime_env = dict(self.runtime_env)
        env = {**dict(runtime_env.get("env_vars", {})), **self.worker_env()}
        if env:
            runtime_env["env_vars"] = env
        return {"max_retries": 0, "runtime_env": runtime_env or None, **extra}

    async def open(
        self,
        backend: SandboxBackend | str | None,
        tasks: Sequence[Task],
        agents: Sequence[BenchmarkAgent],
    ) -> str:
        ray = self._ray = import_ray()
        if not ray.is_initialized():
            address = self.address or os.environ.get("RAY_ADDRESS") or "auto"
            init = functools.partial(
                ray.init, address=address, namespace=self.namespace, log_to_driver=False
            )
            try:
                await anyio.to_thread.run_sync(init)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise LhtbError(
                    f"cannot connect to the Ray cluster at {address!r}: {_describe(exc)}",
                    fix="start one (`ray start --head`) or pass its address "
                    "(--executor ray://HOST:10001, or RAY_ADDRESS=HOST:6379)",
                ) from exc
            self._owns_connection = True
        self._waiters = anyio.CapacityLimiter(100_000)
        self._remote = {  # registered once: each function is exported to the cluster once
            fn.__name__: ray.remote(fn)
            for fn in (episode_on_worker, cleanup_on_worker, backend_name_on_worker)
        }
        if self.capacity(tasks) < 1:
            raise LhtbError(
                f"no node of the Ray cluster offers the {self.slot_resource!r} resource",
                fix="start worker nodes with "
                f"ray start --resources='{{\"{self.slot_resource}\": N}}'",
            )
        self._backend_name = await self._backend_for(backend)
        for task in tasks:
            shipped: Any = task if task.path is None else (pack(task.path), task.checksum)
            self._tasks[task.name] = ray.put(shipped)
        for agent in agents:
            self._agents[agent.name] = ray.put(self._ship_agent(agent))
        log.info("ray_executor_open", slots=self.capacity(tasks), backend=self._backend_name)
        return self._backend_name

    def _ship_agent(self, agent: BenchmarkAgent) -> Any:
        if agent.spec is not None:
            return (agent.name, agent.spec, agent.model, dict(agent.kwargs))
        try:
            self._ray.cloudpickle.dumps(agent)
        except Exception as exc:
            raise LhtbError(
                f"agent {agent.name!r} cannot be sent to Ray workers: {_describe(exc)}",
                fix="give it by spec ('package.module:Class', importable on the workers), "
                "or make its factory picklable (a module-level class or function)",
            ) from exc
        return agent

    async def _backend_for(self, backend: SandboxBackend | str | None) -> str:
        if isinstance(backend, SandboxBackend):
            return backend.name  # workers build it by name, with default settings
        if backend not in (None, "auto"):
            return str(backend)
        probe = self._remote["backend_name_on_worker"].options(
            num_cpus=0, resources={self.slot_resource: 0.001}, max_retries=0
        )
        return str(await self._get(probe.remote(), timeout=CONNECT_TIMEOUT_SEC))

    async def _get(self, ref: Any, timeout: float | None = None) -> Any:
        get = functools.partial(self._ray.get, ref, timeout=timeout)
        return await anyio.to_thread.run_sync(get, abandon_on_cancel=True, limiter=self._waiters)

    def capacity(self, tasks: Sequence[Task]) -> int:
        return int(self._ray.cluster_resources().get(self.slot_resource, 0))

    async def run(self, job: EpisodeJob, on_event: EventHook) -> Episode:
        job.directory.mkdir(parents=True, exist_ok=True)
        remote = self._remote["episode_on_worker"].options(
            **self._options(
                num_cpus=self.num_cpus,
                resources={self.slot_resource: 1},
                scheduling_strategy="SPREAD",
            )
        )
        ref = remote.remote(
            self._tasks[job.task.name],
            self._agents[job.agent.name],
            job.attempt,
            job.run_id,
            job.options,
            self._backend_name,
            job.directory.name,
        )
        on_event("ray_task_submitted", {"try": job.directory.name})
        try:
            archive = await self._get(ref)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                self._cancel(ref)
                failure_record(
                    job, self._backend_name, Outcome.CANCELLED, "the driver stopped the run"
                )
            raise
        except Exception as exc:  # ray.exceptions.*: the worker or its node died, ...
            error = f"the Ray task running this episode failed ({_describe(exc)})"
            log.warning("ray_episode_lost", directory=str(job.directory), error=error)
            return failure_record(job, self._backend_name, Outcome.INFRA_ERROR, error)
        unpack(archive, job.directory)
        record = load_record(job.directory)
        if record is None:
            error = "the Ray worker returned no readable episode record"
            return failure_record(job, self._backend_name, Outcome.INFRA_ERROR, error)
        return record

    def _cancel(self, ref: Any) -> None:
        try:
            self._ray.cancel(ref)
        except Exception as exc:  # the cluster may be gone already
            log.warning("ray_cancel_failed", error=_describe(exc))

    async def cleanup(self, run_id: str) -> int:
        """Clean the run's sandboxes up on every live node that offers slots."""
        from ray.util.scheduling_strategies import (  # noqa: PLC0415
            NodeAffinitySchedulingStrategy,
        )

        refs = []
        for node in self._ray.nodes():
            if not node.get("Alive") or node.get("Resources", {}).get(self.slot_resource, 0) <= 0:
                continue
            where = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
            remote = self._remote["cleanup_on_worker"].options(
                num_cpus=0, max_retries=0, scheduling_strategy=where
            )
            refs.append(remote.remote(self._backend_name, run_id))
        removed = 0
        for ref in refs:
            try:
                removed += int(await self._get(ref, timeout=CONNECT_TIMEOUT_SEC))
            except Exception as exc:  # a node that died meanwhile: `lhtb cleanup` there
                log.warning("ray_cleanup_failed", run_id=run_id, error=_describe(exc))
        return removed

    async def close(self) -> None:
        if self._owns_connection and self._ray is not None:
            await anyio.to_thread.run_sync(self._ray.shutdown)
            self._owns_connection = False
