"""The episode's structured event log: JSON lines via structlog, one file per episode."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any


class EventLog:
    """Append-only ``events.jsonl``; every event is flushed as it is emitted."""

    def __init__(
        self,
        path: Path,
        listener: Callable[[str, dict[str, Any]], None] | None = None,
        **context: Any,
    ) -> None:
        import structlog  # noqa: PLC0415 - heavy; loaded when the first episode runs

        self._listener = listener
        self._file = path.open("a", encoding="utf-8")
        self._log = structlog.wrap_logger(
            structlog.WriteLogger(self._file),
            wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
            processors=[
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.JSONRenderer(),
            ],
        ).bind(**context)

    def emit(self, event: str, **fields: Any) -> None:
        """Write one event (stable snake_case name, values as fields)."""
        if not self._file.closed:
            self._log.info(event, **fields)
        if self._listener is not None:
            self._listener(event, fields)

    def bind(self, **fields: Any) -> Any:
        """A logger for agents that writes into this log with extra context."""
        return self._log.bind(**fields)

    def close(self) -> None:
        """Close the file; later events are dropped."""
        self._file.close()
