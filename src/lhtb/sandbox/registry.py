"""Finding sandbox backends by name: built-ins plus the ``lhtb.backends`` entry points."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from lhtb.errors import BackendNotFoundError
from lhtb.sandbox.base import SandboxBackend

__all__ = ["ENTRY_POINT_GROUP", "available_backends", "resolve_backend"]

ENTRY_POINT_GROUP = "lhtb.backends"


def _docker() -> type[SandboxBackend]:
    from lhtb.sandbox.docker import DockerBackend  # noqa: PLC0415 - lazy: imports the SDK

    return DockerBackend


_BUILTIN: dict[str, Callable[[], type[SandboxBackend]]] = {"docker": _docker}


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
    """A backend instance from an instance, a name, or None / ``"auto"`` for the default."""
    if isinstance(backend, SandboxBackend):
        return backend
    if backend is None or backend == "auto":
        backend = "docker"
    return _load(backend)()
