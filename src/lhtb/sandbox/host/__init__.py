"""Host-side helpers of the sandboxes: what the host does to a sandbox's files and processes.

Owns putting what came out of a sandbox on the host without following anything
it made (:func:`extract_to_host`, :func:`write_host_file`, public: a third-party
backend uses them too), exporting a frozen sandbox's files through its init's
root, freezing a container's processes from the host (cgroups, out of the
agent's reach), measuring trees without following links, and copying or
removing layers.

- ``_files``: safe extraction and host writes (public names above).
- ``_export``: a frozen sandbox's files as a tar, read from the host.
- ``_freeze``: the host cgroup freezer and process sweeps.
- ``_tree_usage``, ``_trees``: measuring, copying and removing trees.

May import: the sandbox core (:mod:`lhtb.sandbox.archive`, :mod:`lhtb.sandbox.base`),
:mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`; no backend.
"""

from lhtb.sandbox.host._files import MAX_DEPTH, extract_to_host, write_host_file

__all__ = ["MAX_DEPTH", "extract_to_host", "write_host_file"]
