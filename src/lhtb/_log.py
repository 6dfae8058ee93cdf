"""Library logging: structured events routed through the standard ``logging`` module.

lhtb never configures logging for its users. Its events go to stdlib loggers
named after the module (``lhtb.sandbox.docker`` ...), so they are silent below
WARNING until the application (or ``lhtb -v``) turns them on.
"""

from __future__ import annotations

import logging
from typing import Any

import structlog

__all__ = ["get_logger"]


def get_logger(name: str) -> Any:
    """A structlog logger whose events end in the stdlib logger ``name``."""
    return structlog.wrap_logger(
        logging.getLogger(name),
        wrapper_class=structlog.stdlib.BoundLogger,
        processors=[structlog.processors.KeyValueRenderer(key_order=["event"], sort_keys=True)],
    )
