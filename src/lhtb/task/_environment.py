"""The ``[environment]`` table of ``task.toml`` (also used for ``[verifier.environment]``)."""

from __future__ import annotations

import enum
import re
from typing import Any

from lhtb.task._model import EnvironmentConfig, Healthcheck, McpServer
from lhtb.task._network import NETWORK_KEYS, network_access
from lhtb.task._toml_lines import dotted
from lhtb.task._toml_reader import Section, describe

__all__ = ["ENVIRONMENT_KEYS", "parse_environment"]

ENVIRONMENT_KEYS = frozenset(
    {
        "build_timeout_sec",
        "docker_image",
        "os",
        "cpus",
        "memory_mb",
        "storage_mb",
        "memory",
        "storage",
        "gpus",
        "gpu_types",
        "allow_internet",
        "env",
        "workdir",
        "skills_dir",
        "healthcheck",
        "mcp_servers",
        *NETWORK_KEYS,
    }
)
HEALTHCHECK_KEYS = frozenset(
    {"command", "interval_sec", "timeout_sec", "start_period_sec", "start_interval_sec", "retries"}
)
MCP_SERVER_KEYS = frozenset({"name", "transport", "url", "command", "args"})

_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT])I?B?\s*\Z", re.IGNORECASE)
_SIZE_FACTORS = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


class _Os(enum.StrEnum):
    LINUX = "linux"
    WINDOWS = "windows"


class _Transport(enum.StrEnum):
    SSE = "sse"
    STREAMABLE_HTTP = "streamable-http"
    STDIO = "stdio"


def parse_environment(section: Section) -> EnvironmentConfig:
    os_choice = section.choice("os", _Os, None, ignore_case=True)
    kwargs: dict[str, Any] = {
        "build_timeout_sec": section.number("build_timeout_sec", None, unit=" of seconds"),
        "docker_image": section.string("docker_image", None),
        "os": os_choice.value if os_choice is not None else None,
        "cpus": section.number("cpus", None),
        "memory_mb": _size(section, "memory_mb", "memory"),
        "storage_mb": _size(section, "storage_mb", "storage"),
        "gpus": section.integer("gpus", None, minimum=0),
        "gpu_types": section.string_list("gpu_types", None),
        "allow_internet": _allow_internet(section),
        "env": section.env("env"),
        "workdir": section.string("workdir", None),
        "skills_dir": section.string("skills_dir", None),
        "healthcheck": _healthcheck(section),
        "mcp_servers": _mcp_servers(section),
    }
    return EnvironmentConfig(**{key: value for key, value in kwargs.items() if value is not None})


def _allow_internet(section: Section) -> bool:
    """Harbor's ``network_mode`` when set (it wins, as in Harbor), else ``allow_internet``."""
    legacy = section.boolean("allow_internet", True)
    access = network_access(section)
    return legacy if access is None else access


def _size(section: Section, mb_key: str, legacy_key: str) -> int | None:
    """``memory_mb`` / ``storage_mb``, or the legacy ``memory = "2G"`` form in MB."""
    size_mb = section.integer(mb_key, None, minimum=1)
    if not section.has(legacy_key):
        return size_mb
    value = section.data[legacy_key]
    match = _SIZE.match(value) if isinstance(value, str) else None
    legacy_mb = round(float(match.group(1)) * _SIZE_FACTORS[match.group(2).upper()]) if match else 0
    if legacy_mb < 1:
        section.fail(
            legacy_key,
            f'`{dotted(section.key(legacy_key))}` must be a size such as "2G" or "512M", '
            f"got {describe(value)}",
            f"Write {mb_key} = <megabytes> instead of the legacy {legacy_key} key",
        )
        return size_mb
    if section.has(mb_key) and size_mb is not None and size_mb != legacy_mb:
        section.fail(
            legacy_key,
            f'legacy `{dotted(section.key(legacy_key))} = "{value}"` ({legacy_mb} MB) '
            f"conflicts with `{dotted(section.key(mb_key))} = {size_mb}`",
            f"Remove the legacy {legacy_key} key and keep {mb_key}",
        )
        return size_mb
    return legacy_mb


def _healthcheck(section: Section) -> Healthcheck | None:
    table = section.table("healthcheck", HEALTHCHECK_KEYS)
    if table is None:
        return None
    command = table.string("command", None, required=True)
    if command is None:
        return None
    kwargs: dict[str, Any] = {
        "interval_sec": table.number("interval_sec", None),
        "timeout_sec": table.number("timeout_sec", None),
        "start_period_sec": table.number("start_period_sec", None, inclusive=True),
        "start_interval_sec": table.number("start_interval_sec", None),
        "retries": table.integer("retries", None, minimum=0),
    }
    return Healthcheck(
        command, **{key: value for key, value in kwargs.items() if value is not None}
    )


def _mcp_servers(section: Section) -> tuple[McpServer, ...] | None:
    servers: list[McpServer] = []
    for entry in section.tables("mcp_servers", MCP_SERVER_KEYS):
        name = entry.string("name", None, required=True)
        transport = entry.choice("transport", _Transport, _Transport.SSE)
        url = entry.string("url", None)
        command = entry.string("command", None)
        args = entry.string_list("args", ())
        if transport is _Transport.STDIO and command is None and not entry.has("command"):
            entry.fail(
                "command",
                f'MCP server "{name}" uses stdio but has no `command`',
                'Add command = "..." (and args = [...]) to this [[environment.mcp_servers]]',
            )
        elif transport is not _Transport.STDIO and url is None and not entry.has("url"):
            entry.fail(
                "url",
                f'MCP server "{name}" uses {transport} but has no `url`',
                'Add url = "http://..." to this [[environment.mcp_servers]]',
            )
        if name is not None:
            servers.append(McpServer(name, transport.value, url, command, args))
    return tuple(servers) if servers else None
