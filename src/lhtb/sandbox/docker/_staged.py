"""A frozen container's changes copied on the host, committed after the thaw.

``docker commit`` takes 70 to 150 ms even for a near-empty container, and a
checkpoint's capture would pause the agent for all of it. When the daemon is
local and stores containers with ``overlay2``, the host copies the frozen
container's upper directory instead (its changes to the image: files,
whiteout devices for deletions, opaque-directory xattrs; ``cp -a``). After the
thaw a container is created from the same image and configuration, never
started; the copy goes into its empty upper directory and that container is
committed. The image is what ``docker commit`` of the agent's container would
have made at the freeze: Docker computes a layer from the upper directory alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import attrs

from lhtb.errors import ArchiveError, SandboxError
from lhtb.sandbox.docker._images import LABEL_ROLE, LABEL_RUN, LABEL_TASK, sanitise_name
from lhtb.sandbox.host._trees import copy_tree, remove_tree, tree_size

if TYPE_CHECKING:
    from lhtb.sandbox.docker._backend import DockerBackend

__all__ = ["ContainerLayer", "StagedChanges", "commit_container", "remove_staged"]

_STAGING = "lhtb-staged"
"""Under the temporary directory: one folder per run, one copy per capture in it."""


@attrs.frozen
class ContainerLayer:
    """What a container is made of: its image, its configuration, its upper directory."""

    image: str
    config: dict[str, Any]
    upper: Path

    @classmethod
    def from_inspect(cls, info: dict[str, Any]) -> ContainerLayer | None:
        """From ``docker inspect``; ``None`` unless the host sees an ``overlay2`` upper
        directory (another storage driver, a remote daemon, no access)."""
        driver = info.get("GraphDriver") or {}
        upper = (driver.get("Data") or {}).get("UpperDir")
        if driver.get("Name") != "overlay2" or not upper or not os.access(upper, os.R_OK | os.X_OK):
            return None
        return cls(
            image=str(info["Image"]), config=dict(info.get("Config") or {}), upper=Path(upper)
        )


@attrs.frozen
class StagedChanges:
    """A copy of a container's upper directory, taken while it was frozen."""

    layer: ContainerLayer
    directory: Path

    @classmethod
    def take(cls, layer: ContainerLayer, *, run_id: str, limit: int, where: str) -> StagedChanges:
        """Copy ``layer``'s changes (blocking; the caller froze the container).

        Raises:
            ArchiveError: the changes exceed ``limit`` bytes (apparent size).
            SandboxError: the copy failed.
        """
        size = tree_size(layer.upper)
        if size > limit:
            raise ArchiveError(
                f"the sandbox's filesystem changes ({size} bytes) exceed the snapshot cap "
                f"of {limit} bytes",
                where=where,
                fix="Keep the working files small, or raise DockerSettings.max_snapshot_bytes",
            )
        run = Path(tempfile.gettempdir()) / _STAGING / sanitise_name(run_id)
        run.mkdir(parents=True, exist_ok=True)
        directory = Path(tempfile.mkdtemp(dir=run))
        try:
            copy_tree(layer.upper, directory / "layer")
        except BaseException:
            remove_tree(directory)
            raise
        return cls(layer, directory)

    async def commit(
        self, backend: DockerBackend, *, repository: str, tag: str, labels: dict[str, str]
    ) -> None:
        """Commit the copy as ``repository:tag`` with ``labels``, then remove the copy.

        Raises:
            SandboxError: Docker failed.
        """
        where = f"snapshot {repository}:{tag}"
        api = backend.client.api
        config = self.layer.config
        try:
            created = await backend._call(
                where,
                api.create_container,
                self.layer.image,
                command=config.get("Cmd"),
                entrypoint=config.get("Entrypoint"),
                environment=config.get("Env"),
                working_dir=config.get("WorkingDir") or None,
                user=config.get("User") or None,
                labels={key: labels[key] for key in (LABEL_RUN, LABEL_ROLE, LABEL_TASK)},
            )
            try:
                info = await backend._call(where, api.inspect_container, created["Id"])
                target = ContainerLayer.from_inspect(info)
                if target is None:
                    raise SandboxError("the new container has no upper directory", where=where)
                copy = functools.partial(
                    copy_tree, self.directory / "layer", target.upper, into=True
                )
                await anyio.to_thread.run_sync(copy)
                await backend._call(
                    where,
                    commit_container,
                    api,
                    created["Id"],
                    repository=repository,
                    tag=tag,
                    labels=labels,
                    pause=False,  # never started
                    timeout=backend.settings.snapshot_timeout_sec,
                )
            finally:
                with anyio.CancelScope(shield=True):
                    await backend.remove_container(created["Id"])
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._remove)

    def _remove(self) -> None:
        remove_tree(self.directory)
        with contextlib.suppress(OSError):  # another capture of the run is staged there
            self.directory.parent.rmdir()


def remove_staged(run_id: str | None) -> int:
    """Remove the staged copies of ``run_id`` (all runs if None) a killed run left."""
    runs = Path(tempfile.gettempdir()) / _STAGING
    found = [runs / sanitise_name(run_id)] if run_id is not None else list(runs.glob("*"))
    removed = 0
    for run in found:
        copies = list(run.glob("*"))
        remove_tree(run)
        removed += len(copies)
    return removed


def commit_container(
    api: Any,
    container_id: str,
    *,
    repository: str,
    tag: str,
    labels: dict[str, str],
    pause: bool,
    timeout: float,
) -> None:
    """``docker commit``, waiting up to ``timeout`` for the answer (the client's timeout
    is for quick calls; the daemon goes on committing after the client gives up)."""
    params = {"container": container_id, "repo": repository, "tag": tag, "pause": pause}
    url = api._url("/commit")
    api._result(api._post_json(url, data={"Labels": labels}, params=params, timeout=timeout))
