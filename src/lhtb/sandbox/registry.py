"""Finding sandbox backends by name: built-ins plus the ``lhtb.backends`` entry points.

``"auto"`` (and ``None``) picks Docker when a daemon answers a quick ping, else
the local backend.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from lhtb._util.log import get_logger
from lhtb.errors import BackendNotFoundError
from lhtb.sandbox.base import SandboxBackend

__all__ = [
    "ENTRY_POINT_GROUP",
    "auto_backend_name",
    "available_backends",
    "resolve_backend",
    "usable_builtin_backends",
]

ENTRY_POINT_GROUP = "lhtb.backends"
DOCKER_PING_TIMEOUT_SEC = 3.0
"""How long ``auto`` waits for a Docker daemon to answer before choosing local."""

log = get_logger(__name__)


def _docker() -> type[SandboxBackend]:
    from lhtb.sandbox.docker._backend import DockerBackend  # noqa: PLC0415 - lazy: imports the SDK

    return DockerBackend


def _local() -> type[SandboxBackend]:
    from lhtb.sandbox.local._backend import LocalBackend  # noqa: PLC0415 - lazy like docker

    return LocalBackend


_BUILTIN: dict[str, Callable[[], type[SandboxBackend]]] = {"docker": _docker, "local": _local}


def _docker_answers(timeout: float) -> bool:
    try:
        import docker  # noqa: PLC0415

        client = docker.from_env(timeout=max(1, round(timeout)))
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def auto_backend_name(*, timeout: float = DOCKER_PING_TIMEOUT_SEC) -> str:
    """``"docker"`` when a Docker daemon answers within ``timeout``, else ``"local"``."""
    name = "docker" if _docker_answers(timeout) else "local"
    log.debug("backend_auto_selected", backend=name)
    return name


def usable_builtin_backends(*, timeout: float = DOCKER_PING_TIMEOUT_SEC) -> list[str]:
    """The built-in backends that can work on this machine (local always; Docker if it answers)."""
    return ["docker", "local"] if _docker_answers(timeout) else ["local"]


def available_backends() -> list[str]:
    """Names of every backend that can be asked for."""
    names = set(_BUILTIN) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(names)


def _load(name: str) -> type[SandboxBackend]:
    if name in _BUILTIN:
        return _BUILTIN[name]()
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        loaded = ep.load()
        if isinstance(loaded, type) and issubclass(loaded, SandboxBackend):
            return loaded
        raise BackendNotFoundError(
            f"entry point {ep.value!r} for backend {name!r} is not a SandboxBackend subclass",
            where=f"[project.entry-points.{ENTRY_POINT_GROUP!r}]",
        )
    raise BackendNotFoundError(
        f"no sandbox backend named {name!r}",
        fix=f"choose one of: {', '.join(available_backends())}",
    )


def resolve_backend(backend: SandboxBackend | str | None) -> SandboxBackend:
    """A backend instance from an instance, a name, or None / ``"auto"`` for the default.

    Raises:
        BackendNotFoundError: no backend has that name (built-in or entry point).
    """
    if isinstance(backend, SandboxBackend):
        return backend
    if backend is None or backend == "auto":
        backend = auto_backend_name()
    return _load(backend)()
