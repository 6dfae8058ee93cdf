"""Harbor 0.26's network policy keys: ``network_mode`` and ``allowed_hosts``.

``[environment]`` sets the task's policy (``network_mode`` wins over the legacy
``allow_internet``, as in Harbor); ``[agent]`` and ``[verifier]`` may repeat it.
lhtb runs ``public`` and ``no-network``; an allowlist, a phase that differs from the
environment and ``[[verifier.collect]]`` raise
:class:`~lhtb.errors.UnsupportedFeatureError`, so a dataset skips the task.
"""

from __future__ import annotations

import enum

from lhtb.task._toml_reader import Section

__all__ = ["NETWORK_KEYS", "check_phase_network", "check_verifier_collect", "network_access"]

NETWORK_KEYS = frozenset({"network_mode", "allowed_hosts"})
_FIX = 'Run this task with Harbor, or use network_mode = "public" or "no-network"'


class _NetworkMode(enum.StrEnum):
    NO_NETWORK = "no-network"
    PUBLIC = "public"
    ALLOWLIST = "allowlist"


def network_access(section: Section) -> bool | None:
    """Whether ``section``'s ``network_mode`` allows the internet (None: not set).

    Raises:
        UnsupportedFeatureError: an allowlist (``allowlist`` or ``allowed_hosts``).
    """
    mode = section.choice("network_mode", _NetworkMode, None)
    hosts = section.string_list("allowed_hosts", None)
    if mode is _NetworkMode.ALLOWLIST or hosts:
        key = "allowed_hosts" if hosts and mode is not _NetworkMode.ALLOWLIST else "network_mode"
        section.unsupported(key, "a network allowlist", _FIX)
    return None if mode is None else mode is _NetworkMode.PUBLIC


def check_phase_network(section: Section, allow_internet: bool) -> None:
    """``[agent]`` / ``[verifier]`` may repeat the environment's policy, not change it.

    Raises:
        UnsupportedFeatureError: the phase asks for another policy than the environment.
    """
    access = network_access(section)
    if access is not None and access != allow_internet:
        section.unsupported("network_mode", "a network policy for one phase only", _FIX)


def check_verifier_collect(section: Section) -> None:
    """``[[verifier.collect]]`` commands are not run; an empty list is fine.

    Raises:
        UnsupportedFeatureError: the task has collect commands.
    """
    if section.data.get("collect"):
        section.unsupported("collect", "running verifier collect commands", _FIX)
