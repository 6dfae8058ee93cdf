"""lhtb: an SDK and benchmark for long-horizon terminal agents."""

from lhtb import errors
from lhtb._executor import EpisodeExecutor, EpisodeJob, InProcessExecutor
from lhtb.agent import Agent, AgentFactory, Turn
from lhtb.benchmark import (
    Backoff,
    BenchmarkAgent,
    BenchmarkResult,
    run_benchmark,
    run_benchmark_sync,
)
from lhtb.episode import (
    Episode,
    EpisodeConfig,
    FeedbackMode,
    Outcome,
    PassOutcome,
    TurnRecord,
    VerifierPass,
)
from lhtb.leaderboard import Leaderboard, LeaderboardRow
from lhtb.loader import load_task, load_tasks
from lhtb.ray_executor import RayExecutor, RayNotInstalledError
from lhtb.runner import run_episode, run_episode_sync
from lhtb.sandbox import ExecResult, ManagedSandbox, Sandbox, SandboxBackend
from lhtb.sandbox.local import LocalBackend, LocalSettings
from lhtb.scoring import Scorecard, Subtask, check_declared, read_scorecard
from lhtb.task import (
    AgentConfig,
    Artifact,
    ContinueMode,
    EnvironmentConfig,
    IsolationMode,
    Task,
    VerifierConfig,
    Visibility,
)
from lhtb.usage import Usage, UsageRecorder

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentConfig",
    "AgentFactory",
    "Artifact",
    "Backoff",
    "BenchmarkAgent",
    "BenchmarkResult",
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
    "Subtask",
    "Task",
    "Turn",
    "TurnRecord",
    "Usage",
    "UsageRecorder",
    "VerifierConfig",
    "VerifierPass",
    "Visibility",
    "__version__",
    "check_declared",
    "errors",
    "load_task",
    "load_tasks",
    "read_scorecard",
    "run_benchmark",
    "run_benchmark_sync",
    "run_episode",
    "run_episode_sync",
]
