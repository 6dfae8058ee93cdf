"""Tasks: the task model, loading task directories, and the ``task.toml`` schema.

Owns what one benchmark task is (:class:`Task` and its tables, validated values
only), how a Harbor / Terminal-Bench / LHTB task directory becomes one
(:func:`load_task`, :func:`load_tasks`, :func:`load_runnable_tasks`), and the
strict reading of ``task.toml`` (every key, its type and its line; unknown keys
are errors that name the nearest valid key).

- ``_model``: the attrs classes (:class:`Task`, :class:`AgentConfig`, ...).
- ``_loader``: task directories to tasks (instruction, checksum, errors collected).
- ``_toml``, ``_environment``, ``_network``, ``_steps``: the ``task.toml`` tables.
- ``_toml_reader``, ``_toml_lines``: typed access to parsed TOML, and key lines.
- ``_files``: the instruction's canary lines and the content checksum.

May import: :mod:`lhtb.errors` and :mod:`lhtb._util` (the lowest layer).
"""

from lhtb.task._loader import load_runnable_tasks, load_task, load_tasks
from lhtb.task._model import (
    AgentConfig,
    Artifact,
    ContinueMode,
    EnvironmentConfig,
    Healthcheck,
    IsolationMode,
    McpServer,
    SolutionConfig,
    Step,
    StepReward,
    SubtaskSpec,
    Task,
    TaskInfo,
    Tier,
    VerifierConfig,
    Visibility,
    resolve_env,
    verifies_live,
)

__all__ = [
    "AgentConfig",
    "Artifact",
    "ContinueMode",
    "EnvironmentConfig",
    "Healthcheck",
    "IsolationMode",
    "McpServer",
    "SolutionConfig",
    "Step",
    "StepReward",
    "SubtaskSpec",
    "Task",
    "TaskInfo",
    "Tier",
    "VerifierConfig",
    "Visibility",
    "load_runnable_tasks",
    "load_task",
    "load_tasks",
    "resolve_env",
    "verifies_live",
]
