"""A minimal task for :class:`~lhtb.testing.FakeBackend` episodes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lhtb.task._model import (
    AgentConfig,
    Artifact,
    ContinueMode,
    EnvironmentConfig,
    IsolationMode,
    Task,
    VerifierConfig,
)

__all__ = ["fake_task"]


def fake_task(
    directory: str | Path,
    *,
    name: str = "fake-task",
    budget: float = 600.0,
    continue_until_timeout: bool = True,
    continue_mode: ContinueMode | str = ContinueMode.SAME_CONVERSATION,
    isolation: IsolationMode | str = IsolationMode.SHARED,
    max_passes: int | None = None,
    verifier_timeout_sec: float = 600.0,
    artifacts: Sequence[str] = (),
) -> Task:
    """A task whose tests directory (a placeholder ``test.sh``) is written under ``directory``.

    The :class:`~lhtb.testing.FakeBackend` plays the tests from its script, so only
    the settings matter: the budget, the continue flag and mode, the isolation
    mode, ``max_passes``, the verifier timeout and the artifact paths.
    """
    root = Path(directory)
    tests = root / "tests"
    tests.mkdir(parents=True, exist_ok=True)
    (tests / "test.sh").write_text("#!/bin/sh\n# played by lhtb.testing.FakeBackend\n")
    return Task(
        name=name,
        instruction=f"Solve {name}.",
        environment=EnvironmentConfig(allow_internet=False),
        agent=AgentConfig(
            timeout_sec=budget,
            continue_until_timeout=continue_until_timeout,
            continue_mode=ContinueMode(continue_mode),
        ),
        verifier=VerifierConfig(
            isolation=IsolationMode(isolation),
            timeout_sec=verifier_timeout_sec,
            max_passes=max_passes,
        ),
        artifacts=tuple(Artifact(path) for path in artifacts),
        path=root,
        tests_dir=tests,
    )
