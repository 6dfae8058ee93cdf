"""Harbor's side of a compose environment: the base layer and the interpolation variables.

Harbor runs ``docker compose -f <base> -f <build|prebuilt> -f environment/docker-compose.yaml``
with variables such as ``${CONTEXT_DIR}`` and ``${MAIN_IMAGE_NAME}`` in the
environment, so a task's compose file may declare service ``main`` without
``build`` (the base layer adds it) and refer to those variables. lhtb writes the
same base layer (build context or prebuilt image, ``sh -c "sleep infinity"``)
and sets the same variables; ``HOST_*`` paths point at a per-project scratch
directory (lhtb reads logs from the container, it does not bind-mount them).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from lhtb.task._model import Task

__all__ = ["KEEPALIVE", "base_layer", "scratch_dir", "variables"]

KEEPALIVE = ["sh", "-c", "sleep infinity"]
"""Main's command unless the task's compose file sets one (as in Harbor)."""
_CONTAINER_PATHS = {
    "VERIFIER_LOGS_PATH": "/logs/verifier",
    "AGENT_LOGS_PATH": "/logs/agent",
    "ARTIFACTS_PATH": "/logs/artifacts",
}


def scratch_dir(project: str, *, create: bool = True) -> Path:
    """The host directory behind the ``HOST_*_PATH`` variables of ``project``."""
    path = Path(tempfile.gettempdir()) / "lhtb-compose" / project
    if create:
        for name in ("verifier", "agent", "artifacts"):
            (path / name).mkdir(parents=True, exist_ok=True)
    return path


def remove_scratch_dir(project: str) -> None:
    """Delete the scratch directory of ``project`` (missing is fine)."""
    shutil.rmtree(scratch_dir(project, create=False), ignore_errors=True)


def variables(
    task: Task, *, context_dir: Path, main_image: str, project: str, task_env: dict[str, str]
) -> dict[str, str]:
    """The process environment of every compose command: host env, Harbor's variables,
    then the task's resolved ``[environment].env`` (which wins, as in Harbor)."""
    scratch = scratch_dir(project)
    harbor = {
        "MAIN_IMAGE_NAME": main_image,
        "CONTEXT_DIR": str(context_dir.resolve()),
        "CPUS": f"{task.environment.cpus:g}",
        "MEMORY": f"{task.environment.memory_mb}M",
        "TEST_DIR": "/tests",
        "HOST_VERIFIER_LOGS_PATH": str(scratch / "verifier"),
        "HOST_AGENT_LOGS_PATH": str(scratch / "agent"),
        "HOST_ARTIFACTS_PATH": str(scratch / "artifacts"),
        **{f"ENV_{key}": value for key, value in _CONTAINER_PATHS.items()},
    }
    if task.environment.docker_image:
        harbor["PREBUILT_IMAGE_NAME"] = task.environment.docker_image
    return {**os.environ, **harbor, **task_env}


def base_layer(task: Task, *, context_dir: Path) -> dict[str, object]:
    """Harbor's build (or prebuilt) layer for ``main``, placed before the task's file."""
    main: dict[str, object] = {"command": KEEPALIVE}
    if task.environment.docker_image:
        main["image"] = task.environment.docker_image
    elif (context_dir / "Dockerfile").is_file():
        main["build"] = {"context": str(context_dir.resolve())}
    return {"services": {"main": main}}
