"""Host-side state of the local backend: where sandboxes live, what they must not see,
the image store (provisioned and snapshot layers), and the freezer cgroups.

Layout under the state root (``/var/lib/lhtb/local`` as root, else
``$XDG_DATA_HOME/lhtb/local``; ``LHTB_LOCAL_STATE`` overrides)::

    images/<id>/image.json     ImageMeta: kind, task, workdir, env, user, run id
    images/<id>/layer/         an overlay upper directory (whiteouts, opaque dirs)
    sandboxes/<id>/sandbox.json  run id, role, task, host PIDs (for cleanup)
    sandboxes/<id>/{upper,work,merged,control.sock,init.json}

A sandbox's root is an overlay whose only lower layer is the host's ``/`` and
whose upper starts as a copy of the image layer. Host paths are masked by
marking them opaque (directories) or whited out (files) in that upper before
it is mounted, so nothing the agent does can reveal them.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from lhtb.task._model import Task

__all__ = [
    "IMAGE_PREFIX",
    "ImageMeta",
    "default_state_root",
    "mask_paths",
    "open_episode_dirs",
    "system_dirs",
]

IMAGE_PREFIX = "lhtb-local:"
STATE_ENV = "LHTB_LOCAL_STATE"
MASK_ENV = "LHTB_LOCAL_MASK"
SYSTEM_TOP_LEVEL = frozenset(
    {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "var", "opt"}
    | {"proc", "sys", "dev"}
)
NESTED_MASKS = (
    "/var/lib/docker",
    "/var/lib/containerd",
    "/var/lib/containers",
    "/var/lib/kubelet",
    "/var/lib/lxc",
    "/var/lib/lxd",
    "/var/run",
    "/var/tmp",
    "/var/mail",
    "/var/spool/cron",
    "/etc/docker",
    "/etc/containerd",
)
EMPTY_DIRS = frozenset(
    {"/home", "/root", "/tmp", "/run", "/mnt", "/media", "/srv", "/boot", "/var/tmp"}
)
"""Masked paths that stay as empty directories (programs expect them); others vanish."""
PASSWORD_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")
"""Kept, but with every password hash replaced (see ``scrub_passwords`` in the init)."""
SECRET_GLOBS = ("/etc/ssh/ssh_host_*_key", "/etc/ssl/private")
SOCKET_FILES = ("/var/run/docker.sock", "/run/docker.sock", "/var/run/containerd.sock")


def default_state_root() -> Path:
    """Where the local backend keeps images and sandboxes on this host."""
    if override := os.environ.get(STATE_ENV):
        return Path(override)
    if os.geteuid() == 0:
        return Path("/var/lib/lhtb/local")
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "lhtb" / "local"


def _repo_checkout() -> Path | None:
    """The source checkout lhtb is imported from (editable installs), if any."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (
            (parent / ".git").exists() or (parent / "tasks").is_dir()
        ):
            return parent
    return None


EVENT_LOG_NAME = "events.jsonl"
RUN_MANIFEST_NAME = "run.json"


def open_episode_dirs() -> list[str]:
    """Episode directories this process is writing right now, and the runs holding them.

    An episode keeps its event log (``events.jsonl``) open from start to end, so
    every episode running in this harness (any ``output_dir``) is found by its
    open file; a parent directory with a run manifest (``run.json``) is the
    benchmark run's directory and is masked as a whole.
    """
    found: set[str] = set()
    with contextlib.suppress(OSError):
        for link in Path("/proc/self/fd").iterdir():
            with contextlib.suppress(OSError):
                target = link.readlink()
                if target.name == EVENT_LOG_NAME:
                    episode = target.parent
                    found.add(str(episode))
                    for parent in episode.parents:
                        if (parent / RUN_MANIFEST_NAME).is_file():
                            found.add(str(parent))
    return sorted(found)


def _docker_host_socket() -> list[str]:
    value = os.environ.get("DOCKER_HOST", "")
    return [value.removeprefix("unix://")] if value.startswith("unix://") else []


def mask_paths(
    task: Task | None, state_root: Path, extra: Iterable[str | Path] = ()
) -> tuple[list[str], list[str]]:
    """``(empty_dirs, hidden)``: host paths shown as empty directories, and paths removed.

    Masked: every top-level host entry outside the system set (``/home``,
    ``/root``, ``/run``, ``/tmp``, ``/mnt``, ``/srv``, ``/work`` ...), container
    runtimes' state and sockets, lhtb's own state root, the source checkout,
    the current directory and its ``runs/``, the directories of the episodes
    (and benchmark runs) this process is writing (:func:`open_episode_dirs`),
    the task's own directories (tests and solution included), ``extra`` and
    ``$LHTB_LOCAL_MASK`` (``:``-separated).
    The standard directories in :data:`EMPTY_DIRS` stay as empty directories;
    everything else disappears.
    """
    candidates: list[str] = []
    with os.scandir("/") as entries:
        for entry in entries:
            if entry.name not in SYSTEM_TOP_LEVEL and not entry.is_symlink():
                candidates.append(f"/{entry.name}")
    candidates.extend(NESTED_MASKS)
    candidates.append(str(state_root))
    checkout = _repo_checkout()
    if checkout is not None:
        candidates.append(str(checkout))
    cwd = Path.cwd()
    candidates.append(str(cwd / "runs"))
    if (cwd.parts[1:2] and cwd.parts[1] not in SYSTEM_TOP_LEVEL) or len(cwd.parts) > 3:
        candidates.append(str(cwd))
    if task is not None:
        for path in (task.path, task.tests_dir, task.solution_dir, task.environment_dir):
            if path is not None:
                candidates.append(str(path))
    candidates.extend(open_episode_dirs())
    candidates.extend(str(p) for p in extra)
    candidates.extend(p for p in os.environ.get(MASK_ENV, "").split(":") if p)
    candidates.extend([*SOCKET_FILES, *_docker_host_socket()])
    for pattern in SECRET_GLOBS:
        candidates.extend(str(p) for p in Path("/").glob(pattern.lstrip("/")))
    masked: list[str] = []
    for raw in candidates:
        real = os.path.realpath(raw)
        if real == "/" or real.strip("/") in SYSTEM_TOP_LEVEL:
            continue
        if os.path.lexists(real) and not Path(real).is_symlink():
            masked.append(real)
    outermost = _outermost(masked)
    empty = [p for p in outermost if p in EMPTY_DIRS and Path(p).is_dir()]
    return empty, [p for p in outermost if p not in empty]


def system_dirs() -> list[str]:
    """Top-level host entries a user-namespace sandbox binds read-only (dirs or symlinks)."""
    names = []
    for name in sorted(SYSTEM_TOP_LEVEL - {"proc", "sys", "dev"}):
        path = Path("/") / name
        if path.is_symlink() or path.is_dir():
            names.append(name)
    return names


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _outermost(paths: Iterable[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(set(paths), key=lambda p: (p.count("/"), p)):
        if not any(_under(path, parent) for parent in kept):
            kept.append(path)
    return sorted(kept)


# -- image store --------------------------------------------------------------------------------


@attrs.frozen
class ImageMeta:
    """What ``image.json`` records about one stored layer."""

    id: str
    kind: str
    """``environment`` (provisioned from a Dockerfile) or ``snapshot``."""
    task: str
    workdir: str | None = None
    env: Mapping[str, str] = attrs.field(factory=dict)
    user: str | None = None
    base: str | None = None
    """The ``FROM`` line of the Dockerfile (recorded; the host stands in for it)."""
    run_id: str | None = None
    content_hash: str | None = None
    created: float = 0.0

    def save(self, directory: Path) -> None:
        data = attrs.asdict(self)
        data["env"] = dict(self.env)
        (directory / "image.json").write_text(json.dumps(data, indent=2, sort_keys=True))

    @classmethod
    def load(cls, directory: Path) -> ImageMeta:
        data: dict[str, Any] = json.loads((directory / "image.json").read_text())
        return cls(**data)
