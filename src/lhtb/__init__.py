"""lhtb: an SDK and benchmark for long-horizon terminal agents."""

from lhtb import errors
from lhtb.agent import Agent, AgentFactory, Turn
from lhtb.episode import (
    Episode,
    EpisodeConfig,
    FeedbackMode,
    Outcome,
    PassOutcome,
    TurnRecord,
    VerifierPass,
)
from lhtb.loader import load_task, load_tasks
from lhtb.runner import run_episode, run_episode_sync
from lhtb.sandbox import ExecResult, ManagedSandbox, Sandbox, SandboxBackend
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
    "ContinueMode",
    "EnvironmentConfig",
    "Episode",
    "EpisodeConfig",
    "ExecResult",
    "FeedbackMode",
    "IsolationMode",
    "ManagedSandbox",
    "Outcome",
    "PassOutcome",
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
    "run_episode",
    "run_episode_sync",
]
