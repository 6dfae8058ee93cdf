"""Library logging: structured events routed through the standard ``logging`` module.

lhtb never configures logging for its users. Its events go to stdlib loggers
named after the module (``lhtb.sandbox.docker`` ...), so they are silent below
WARNING until the application (or ``lhtb -v``) turns them on. structlog is
imported on the first event, not with ``import lhtb``.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["get_logger"]


class _Logger:
    """A structlog logger for the stdlib logger ``name``, made on first use."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if self._logger is None:
            import structlog  # noqa: PLC0415 - heavy (it loads rich); only when logging

            self._logger = structlog.wrap_logger(
                logging.getLogger(self._name),
                wrapper_class=structlog.stdlib.BoundLogger,
                processors=[
                    structlog.processors.KeyValueRenderer(key_order=["event"], sort_keys=True)
                ],
            )
        return getattr(self._logger, attribute)


def get_logger(name: str) -> Any:
    """A structlog logger whose events end in the stdlib logger ``name``."""
    return _Logger(name)
