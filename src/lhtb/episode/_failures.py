"""What an exception that ended an episode means: whose failure it is and whether to retry.

* the agent could not be made (:class:`~lhtb.errors.AgentLoadError`): ``agent_error``;
* the sandbox or its daemon failed (:class:`~lhtb.errors.SandboxError`, the Docker SDK's
  errors, ``OSError``): ``infra_error``, retried unless the error says retrying cannot help;
* any other error lhtb raised on purpose (a task that cannot be set up as given, an
  unset ``${VAR}``): ``infra_error``, not retried;
* anything else is a bug in lhtb: ``harness_error``, not retried, its traceback saved
  next to the episode record.

The person-facing message goes to ``Episode.error``, the raw exception to
``Episode.error_detail``.
"""

from __future__ import annotations

import traceback
from pathlib import Path

import attrs

from lhtb.episode._record import Outcome
from lhtb.errors import AgentLoadError, LhtbError, SandboxError

__all__ = ["TRACEBACK_FILE", "Failure", "classify", "raw"]

TRACEBACK_FILE = "traceback.txt"
"""Where a ``harness_error`` episode keeps the traceback, in its directory."""
_DAEMON_MODULES = ("docker.", "requests.", "urllib3.")


@attrs.frozen
class Failure:
    """An episode-ending exception, classified."""

    outcome: Outcome
    message: str
    detail: str
    can_retry: bool
    event: str = attrs.field(default=attrs.Factory(lambda self: str(self.outcome), takes_self=True))
    """The event logged for it (default: the outcome's name)."""


def raw(exc: BaseException) -> str:
    """``Type: message`` of an exception, as kept in the record."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _is_daemon_failure(exc: BaseException) -> bool:
    module = type(exc).__module__ + "."
    return isinstance(exc, OSError) or module.startswith(_DAEMON_MODULES)


def classify(exc: Exception, directory: Path | None = None) -> Failure:
    """Classify ``exc``; for a harness error, save its traceback under ``directory``."""
    if isinstance(exc, AgentLoadError):
        return Failure(Outcome.AGENT_ERROR, str(exc), raw(exc), can_retry=False)
    if isinstance(exc, SandboxError):
        detail = getattr(exc, "detail", "") or raw(exc)  # SetupError keeps the raw text
        return Failure(Outcome.INFRA_ERROR, str(exc), detail, can_retry=exc.retryable)
    if isinstance(exc, LhtbError):
        return Failure(
            Outcome.INFRA_ERROR, str(exc), raw(exc), can_retry=False, event="setup_error"
        )
    if _is_daemon_failure(exc):
        message = f"the sandbox backend failed: {_first_line(exc)}"
        return Failure(Outcome.INFRA_ERROR, message, raw(exc), can_retry=True)
    where = _save_traceback(exc, directory)
    message = (
        f"internal error in lhtb ({type(exc).__name__}: {_first_line(exc)}); "
        f"traceback in {where or 'the log'}. Please report it"
    )
    detail = raw(exc) if where is None else f"{raw(exc)} (traceback: {where})"
    return Failure(Outcome.HARNESS_ERROR, message, detail, can_retry=False)


def _save_traceback(exc: BaseException, directory: Path | None) -> Path | None:
    if directory is None:
        return None
    path = directory / TRACEBACK_FILE
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:
        return None
    return path
