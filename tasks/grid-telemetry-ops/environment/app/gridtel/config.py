"""Service configuration from the environment (see docs/operations.md)."""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    """Everything the service reads at start-up."""

    host: str
    port: int
    redis_url: str
    key_prefix: str
    flush_interval_s: float
    flush_max_items: int
    log_level: str
    max_body_bytes: int

    @property
    def bind(self):
        return (self.host, self.port)


def _int(name, default):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"gridtel: {name} must be an integer, got {raw!r}")


def _float(name, default):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise SystemExit(f"gridtel: {name} must be a number, got {raw!r}")


def load():
    """Read the configuration; unset variables take the production defaults."""
    return Config(
        host=os.environ.get("GRIDTEL_HOST", "0.0.0.0"),
        port=_int("GRIDTEL_PORT", 8080),
        redis_url=os.environ.get("GRIDTEL_REDIS_URL", "redis://redis:6379/0"),
        key_prefix=os.environ.get("GRIDTEL_KEY_PREFIX", "gt"),
        flush_interval_s=_float("GRIDTEL_FLUSH_INTERVAL_S", 2.0),
        flush_max_items=_int("GRIDTEL_FLUSH_MAX_ITEMS", 5000),
        log_level=os.environ.get("GRIDTEL_LOG_LEVEL", "INFO"),
        max_body_bytes=_int("GRIDTEL_MAX_BODY_BYTES", 8 * 1024 * 1024),
    )
