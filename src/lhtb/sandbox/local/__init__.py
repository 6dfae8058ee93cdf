"""The local sandbox backend: Linux namespaces and an overlay of the host, no daemon.

Owns running task environments without Docker (:class:`LocalBackend`,
:class:`LocalSettings`, :func:`check_host`): provisioning a task's Dockerfile subset
into a layer, one init process per sandbox in its own namespaces, the host paths a
sandbox must not see, cgroups (freezer, memory, CPU), user-mode networking, and the
local side of every backend operation (:class:`LocalSandbox`, the agent's view
:class:`LocalAgentSandbox`).

- ``_backend``: :class:`LocalBackend`, :class:`LocalSettings`, :func:`check_host`.
- ``_sandbox``: :class:`LocalSandbox` (exec, files, freeze, export, snapshot, destroy).
- ``_sandbox_init``: the init process inside a sandbox (stdlib only; run as a script).
- ``_exec``, ``_process``: the host side of requests to the init; starting and stopping it.
- ``_root``: the state directory, the image store, the masked host paths.
- ``_provision``, ``_dockerfile``: the Dockerfile subset and provisioning a layer.
- ``_cgroups``, ``_network``, ``_terminal``: freezer and limits, slirp4netns, terminals.

May import: :mod:`lhtb.sandbox.host`, :mod:`lhtb.sandbox.terminal`, the sandbox core,
:mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`; not the Docker backend.
"""

from lhtb.sandbox.local._backend import LocalBackend, LocalSettings, check_host
from lhtb.sandbox.local._sandbox import LocalAgentSandbox, LocalSandbox

__all__ = ["LocalAgentSandbox", "LocalBackend", "LocalSandbox", "LocalSettings", "check_host"]
