"""Typed errors raised by lhtb.

Every error says what was wrong, where, and what to do about it. The message is
built from those three parts so that callers (and the CLI) can print it as is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "AgentBuildError",
    "AgentLoadError",
    "ArchiveError",
    "BackendNotFoundError",
    "BackendUnavailableError",
    "ContextLengthError",
    "EnvTemplateError",
    "EpisodeFormatError",
    "ExecError",
    "GradeInputError",
    "LhtbError",
    "ModelAuthError",
    "ModelCallError",
    "RayNotInstalledError",
    "RewardFileError",
    "RunConfigChangedError",
    "RunInterruptedError",
    "RunLockedError",
    "SandboxError",
    "SandboxUnavailableError",
    "SessionRequestError",
    "SetupError",
    "TaskFormatError",
    "TaskLoadErrors",
    "TaskNotFoundError",
    "UnsupportedFeatureError",
    "VerifierError",
]


class LhtbError(Exception):
    """Base class of every error lhtb raises on purpose."""

    def __init__(self, what: str, *, where: str | None = None, fix: str | None = None) -> None:
        self.what = what
        self.where = where
        self.fix = fix
        super().__init__(self._compose())

    def _compose(self) -> str:
        text = f"{self.where}: {self.what}" if self.where else self.what
        return f"{text}. {self.fix}" if self.fix else text


# -- tasks -------------------------------------------------------------------------------------


class TaskFormatError(LhtbError):
    """A task directory or its ``task.toml`` breaks the task format.

    ``path`` is the offending file or directory, ``line`` the 1-based line in
    that file when known, ``key`` the dotted key when one is at fault.
    """

    def __init__(
        self,
        what: str,
        *,
        path: Path,
        line: int | None = None,
        key: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.key = key
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(what, where=where, fix=fix)


class UnsupportedFeatureError(TaskFormatError):
    """The task uses a feature of the format that lhtb does not run yet."""


class TaskNotFoundError(LhtbError):
    """A path given as a task or task collection holds no task."""


class TaskLoadErrors(LhtbError):
    """Several tasks failed to load; ``errors`` holds every one of them."""

    def __init__(self, errors: Sequence[LhtbError]) -> None:
        self.errors = tuple(errors)
        listing = "\n".join(f"  - {error}" for error in self.errors)
        super().__init__(
            f"{len(self.errors)} task problem(s) found:\n{listing}",
            fix="Fix each listed problem and run `lhtb validate` again",
        )


class EnvTemplateError(LhtbError):
    """A ``${VAR}`` template in a task refers to a host variable that is not set."""


# -- scoring -----------------------------------------------------------------------------------


class VerifierError(LhtbError):
    """The verifier did not produce a usable result. This is not a zero reward."""


class RewardFileError(VerifierError):
    """A reward file written by the tests is missing, empty, malformed or inconsistent."""

    def __init__(self, what: str, *, path: Path, fix: str | None = None) -> None:
        self.path = path
        super().__init__(what, where=str(path), fix=fix)


class EpisodeFormatError(LhtbError):
    """An episode record cannot be read (malformed, truncated, or a newer version)."""


# -- sandboxes ---------------------------------------------------------------------------------


class SandboxError(LhtbError):
    """A sandbox operation failed for a reason on the provider's side.

    ``retryable`` says whether running the episode again may help: true for a
    daemon hiccup (the default), false for a setup that can never work as
    given (pass ``retryable=False``, or raise :class:`SetupError`). A benchmark
    retries only retryable failures.
    """

    retryable: bool = True

    def __init__(
        self,
        what: str,
        *,
        where: str | None = None,
        fix: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        if retryable is not None:
            self.retryable = retryable
        super().__init__(what, where=where, fix=fix)


class SetupError(SandboxError):
    """The task's environment cannot be set up as given, and running the episode again
    would fail the same way: a missing base image, a failed healthcheck, a compose file
    that does not start, a Dockerfile feature the backend cannot build. Never retried.

    The message is written for people; ``detail`` keeps the raw text of the underlying
    error (compose or build output, the exception) for the record.
    """

    retryable = False

    def __init__(
        self, what: str, *, where: str | None = None, fix: str | None = None, detail: str = ""
    ) -> None:
        self.detail = detail
        super().__init__(what, where=where, fix=fix)


class SandboxUnavailableError(SandboxError):
    """The sandbox is gone (container died, was removed, or never started)."""


class ExecError(SandboxError):
    """A command could not be run at all (not: it ran and exited non-zero)."""


class ArchiveError(SandboxError):
    """An archive crossing the sandbox boundary broke the safe-extraction rules."""


class BackendNotFoundError(LhtbError):
    """No sandbox backend is registered under the requested name."""


class BackendUnavailableError(LhtbError):
    """The backend exists but cannot run here (no daemon, missing tool)."""


# -- agents ------------------------------------------------------------------------------------


class AgentLoadError(LhtbError):
    """An agent given as ``module:Class`` or by name could not be loaded, or what was passed
    as an agent is none of the accepted forms."""


class AgentBuildError(AgentLoadError):
    """Making the agent failed: its class or factory raised, or returned something that is
    not an agent. The episode ends as ``agent_error``; it is not retried."""


# -- model calls (the reference agent and the adapter kit) -------------------------------------


class ModelCallError(LhtbError):
    """A model call failed for good (retries exhausted, or an error retrying cannot fix)."""


class ModelAuthError(ModelCallError):
    """The endpoint refused the credentials (401/403) or no API key was found."""


class ContextLengthError(ModelCallError):
    """The conversation no longer fits the model's context window."""


# -- benchmark runs ----------------------------------------------------------------------------


class RunInterruptedError(LhtbError):
    """The run was stopped by a signal; finished episodes are on disk and it can resume."""


class RunConfigChangedError(LhtbError):
    """The output directory holds a run with another configuration; ``changes`` lists them."""

    def __init__(self, directory: Path, changes: list[str]) -> None:
        self.directory = directory
        self.changes = tuple(changes)
        listing = "; ".join(changes)
        super().__init__(
            f"the run in this directory was started with another configuration ({listing})",
            where=str(directory),
            fix="resume with the original settings, or choose a new output directory",
        )


class RunLockedError(LhtbError):
    """Another process is running a benchmark into the same output directory."""


class RayNotInstalledError(LhtbError):
    """The Ray executor was asked for, but the ``ray`` package is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "the Ray executor needs the 'ray' package, which is not installed",
            fix="pip install 'lhtb[ray]'",
        )


# -- sessions (external agents) ----------------------------------------------------------------


class SessionRequestError(LhtbError):
    """The session refused or failed a request; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message, where=f"session ({code})")


# -- grading -----------------------------------------------------------------------------------


class GradeInputError(LhtbError):
    """What was given to :meth:`lhtb.Verifier.grade_files` cannot be graded as it is."""
