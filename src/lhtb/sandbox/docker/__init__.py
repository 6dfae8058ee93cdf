"""The Docker sandbox backend: the docker SDK, one long-lived exec channel per sandbox.

Owns building and running task environments on a Docker daemon
(:class:`DockerBackend`), a running container as a sandbox (:class:`DockerSandbox`,
the agent's restricted view :class:`DockerAgentSandbox`), and Docker's side of every
backend operation: exec over the channel, files, freeze/thaw, export/import,
snapshots (``docker commit``, or staged on the host), terminals, compose projects,
cleanup by label.

- ``_backend``: :class:`DockerBackend` and :class:`DockerSettings`.
- ``_sandbox``: :class:`DockerSandbox` (exec, files, freeze, export, snapshot, destroy).
- ``_channel``, ``_channel_helper``: the exec channel (host end; in-sandbox end, stdlib only).
- ``_exec``: one ``docker exec`` over the Engine API.
- ``_images``: environment images (content-hash tags, builds with a deadline).
- ``_staged``: a frozen container's changes copied on the host, committed after the thaw.
- ``_terminal``: an interactive terminal (``docker exec`` with a TTY).
- ``_compose``, ``_compose_harbor``, ``_compose_images``: ``docker-compose.yaml`` environments.

May import: :mod:`lhtb.sandbox.host`, :mod:`lhtb.sandbox.terminal`, the sandbox core,
:mod:`lhtb.images`, :mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`; not the
local backend.
"""

from lhtb.sandbox.docker._backend import DockerBackend, DockerSettings
from lhtb.sandbox.docker._sandbox import DockerAgentSandbox, DockerSandbox

__all__ = ["DockerAgentSandbox", "DockerBackend", "DockerSandbox", "DockerSettings"]
