"""lhtb: an SDK and benchmark for long-horizon terminal agents.

Names are imported where they live on first use, so ``import lhtb`` stays fast
and loads none of openai, ray, rich, docker or structlog. The sub-packages and
their layers are described in ``docs/architecture.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lhtb._util.version import __version__

if TYPE_CHECKING:
    from lhtb import errors
    from lhtb.agents import Agent, AgentFactory, AgentLike, Turn, Usage, UsageRecorder
    from lhtb.analysis import Leaderboard, LeaderboardRow
    from lhtb.bench import (
        Backoff,
        BenchmarkAgent,
        BenchmarkResult,
        EpisodeExecutor,
        EpisodeJob,
        InProcessExecutor,
        RayExecutor,
        run_benchmark,
        run_benchmark_sync,
    )
    from lhtb.episode import (
        Checkpoint,
        Episode,
        EpisodeConfig,
        FeedbackMode,
        Outcome,
        StepRecord,
        TurnRecord,
        run_episode,
        run_episode_sync,
    )
    from lhtb.errors import RayNotInstalledError
    from lhtb.sandbox import ExecResult, ManagedSandbox, Sandbox, SandboxBackend
    from lhtb.sandbox._task_sandbox import open_sandbox
    from lhtb.sandbox.local import LocalBackend, LocalSettings
    from lhtb.task import (
        AgentConfig,
        Artifact,
        ContinueMode,
        EnvironmentConfig,
        IsolationMode,
        Step,
        StepReward,
        Task,
        VerifierConfig,
        Visibility,
        load_runnable_tasks,
        load_task,
        load_tasks,
        verifies_live,
    )
    from lhtb.verify import (
        PassOutcome,
        Scorecard,
        Subtask,
        Verifier,
        VerifierPass,
        check_declared,
        read_scorecard,
    )


_WHERE: dict[str, str] = {
    "Agent": "lhtb.agents",
    "AgentConfig": "lhtb.task",
    "AgentFactory": "lhtb.agents",
    "AgentLike": "lhtb.agents",
    "Artifact": "lhtb.task",
    "Backoff": "lhtb.bench",
    "BenchmarkAgent": "lhtb.bench",
    "BenchmarkResult": "lhtb.bench",
    "Checkpoint": "lhtb.episode",
    "ContinueMode": "lhtb.task",
    "EnvironmentConfig": "lhtb.task",
    "Episode": "lhtb.episode",
    "EpisodeConfig": "lhtb.episode",
    "EpisodeExecutor": "lhtb.bench",
    "EpisodeJob": "lhtb.bench",
    "ExecResult": "lhtb.sandbox",
    "FeedbackMode": "lhtb.episode",
    "InProcessExecutor": "lhtb.bench",
    "IsolationMode": "lhtb.task",
    "Leaderboard": "lhtb.analysis",
    "LeaderboardRow": "lhtb.analysis",
    "LocalBackend": "lhtb.sandbox.local",
    "LocalSettings": "lhtb.sandbox.local",
    "ManagedSandbox": "lhtb.sandbox",
    "Outcome": "lhtb.episode",
    "PassOutcome": "lhtb.verify",
    "RayExecutor": "lhtb.bench",
    "RayNotInstalledError": "lhtb.errors",
    "Sandbox": "lhtb.sandbox",
    "SandboxBackend": "lhtb.sandbox",
    "Scorecard": "lhtb.verify",
    "Subtask": "lhtb.verify",
    "Step": "lhtb.task",
    "StepRecord": "lhtb.episode",
    "StepReward": "lhtb.task",
    "Task": "lhtb.task",
    "Turn": "lhtb.agents",
    "TurnRecord": "lhtb.episode",
    "Usage": "lhtb.agents",
    "UsageRecorder": "lhtb.agents",
    "Verifier": "lhtb.verify",
    "VerifierConfig": "lhtb.task",
    "VerifierPass": "lhtb.verify",
    "Visibility": "lhtb.task",
    "check_declared": "lhtb.verify",
    "load_task": "lhtb.task",
    "load_runnable_tasks": "lhtb.task",
    "load_tasks": "lhtb.task",
    "normalised_auc": "lhtb.analysis",
    "reward_at": "lhtb.analysis",
    "reward_curve": "lhtb.analysis",
    "time_to_threshold_sec": "lhtb.analysis",
    "verifies_live": "lhtb.task",
    "open_sandbox": "lhtb.sandbox._task_sandbox",
    "read_scorecard": "lhtb.verify",
    "run_benchmark": "lhtb.bench",
    "run_benchmark_sync": "lhtb.bench",
    "run_episode": "lhtb.episode",
    "run_episode_sync": "lhtb.episode",
}
"""Each public name and the module it lives in."""

__all__ = [
    "Agent",
    "AgentConfig",
    "AgentFactory",
    "AgentLike",
    "Artifact",
    "Backoff",
    "BenchmarkAgent",
    "BenchmarkResult",
    "Checkpoint",
    "ContinueMode",
    "EnvironmentConfig",
    "Episode",
    "EpisodeConfig",
    "EpisodeExecutor",
    "EpisodeJob",
    "ExecResult",
    "FeedbackMode",
    "InProcessExecutor",
    "IsolationMode",
    "Leaderboard",
    "LeaderboardRow",
    "LocalBackend",
    "LocalSettings",
    "ManagedSandbox",
    "Outcome",
    "PassOutcome",
    "RayExecutor",
    "RayNotInstalledError",
    "Sandbox",
    "SandboxBackend",
    "Scorecard",
    "Step",
    "StepRecord",
    "StepReward",
    "Subtask",
    "Task",
    "Turn",
    "TurnRecord",
    "Usage",
    "UsageRecorder",
    "Verifier",
    "VerifierConfig",
    "VerifierPass",
    "Visibility",
    "__version__",
    "check_declared",
    "errors",
    "load_runnable_tasks",
    "load_task",
    "load_tasks",
    "normalised_auc",
    "open_sandbox",
    "read_scorecard",
    "reward_at",
    "reward_curve",
    "run_benchmark",
    "run_benchmark_sync",
    "run_episode",
    "run_episode_sync",
    "time_to_threshold_sec",
    "verifies_live",
]


def __getattr__(name: str) -> Any:
    """Import a public name (or a subpackage such as ``lhtb.agents``) on first use."""
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif not name.startswith("__"):
        try:
            value = importlib.import_module(f"lhtb.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"lhtb.{name}":
                raise
            raise AttributeError(f"module 'lhtb' has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module 'lhtb' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
