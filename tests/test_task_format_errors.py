"""The malformed-task corpus: every broken fixture fails with its own precise message.

Each case under ``tests/fixtures/tasks/invalid/<case>/`` holds the files that
differ from ``_skeleton/`` (a valid instruction, Dockerfile and test script);
the builder overlays them, and removes files for the missing-file cases.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

import lhtb
from lhtb.errors import TaskFormatError, UnsupportedFeatureError

INVALID = Path(__file__).parent / "fixtures" / "tasks" / "invalid"


@attrs.frozen
class Case:
    name: str
    key: str | None
    line: int | None
    fragments: tuple[str, ...]
    remove: tuple[str, ...] = ()
    error: type[TaskFormatError] = TaskFormatError
    file: str = "task.toml"


CASES = [
    # TOML syntax
    Case("toml-syntax-error", None, 8, ("invalid TOML", "Fix the TOML syntax on line 8")),
    Case("toml-duplicate-key", "agent.timeout_sec", 9, ('Key "timeout_sec" already exists',)),
    # unknown keys, with the closest valid key
    Case("unknown-root-key", "verison", 3, ("unknown key `verison`", "Did you mean `version`")),
    Case("unknown-section", "verfier", 7, ("unknown key `verfier`", "Did you mean `verifier`")),
    Case(
        "unknown-agent-key",
        "agent.timout_sec",
        8,
        ("unknown key `timout_sec` in [agent]", "Did you mean `timeout_sec`"),
    ),
    Case(
        "unknown-environment-key",
        "environment.memory_gb",
        9,
        ("unknown key `memory_gb` in [environment]", "Did you mean `memory_mb`"),
    ),
    Case(
        "misplaced-agent-key",
        "verifier.continue_until_timeout",
        9,
        ("unknown key `continue_until_timeout` in [verifier]", "is valid in [agent]"),
    ),
    Case(
        "unknown-healthcheck-key",
        "environment.healthcheck.interval",
        9,
        ("in [environment.healthcheck]", "Did you mean `interval_sec`"),
    ),
    Case(
        "unknown-subtask-key",
        "verifier.subtasks[1].wieght",
        16,
        ("unknown key `wieght`", "Did you mean `weight`"),
    ),
    Case(
        "unknown-artifact-key",
        "artifacts[1].destinaton",
        5,
        ("unknown key `destinaton`", "Did you mean `destination`"),
    ),
    Case(
        "unknown-verifier-environment-key",
        "verifier.environment.cpu",
        10,
        ("in [verifier.environment]", "Did you mean `cpus`"),
    ),
    Case(
        "unknown-mcp-server-key",
        "environment.mcp_servers[0].headers",
        11,
        ("unknown key `headers`", "Valid keys in environment.mcp_servers[0]: args, command"),
    ),
    # wrong types and ranges
    Case(
        "timeout-string",
        "agent.timeout_sec",
        8,
        ('got string "3600"', "Remove the quotes: timeout_sec = 3600"),
    ),
    Case("timeout-bool", "verifier.timeout_sec", 8, ("must be a number", "got boolean true")),
    Case("timeout-negative", "agent.timeout_sec", 8, ("must be > 0, got -5",)),
    Case("timeout-nan", "agent.timeout_sec", 8, ("must be a finite number",)),
    Case("build-timeout-zero", "environment.build_timeout_sec", 8, ("must be > 0, got 0",)),
    Case("cpus-zero", "environment.cpus", 8, ("must be > 0, got 0",)),
    Case("memory-mb-negative", "environment.memory_mb", 8, ("must be >= 1, got -1024",)),
    Case(
        "memory-mb-float",
        "environment.memory_mb",
        8,
        ("must be a whole number", "Drop the decimal point: memory_mb = 2048"),
    ),
    Case("gpus-bool", "environment.gpus", 8, ("must be a whole number", "got boolean true")),
    Case(
        "gpu-types-string", "environment.gpu_types", 9, ('an array of strings, got string "H100"',)
    ),
    Case(
        "allow-internet-string",
        "environment.allow_internet",
        8,
        ('true or false, got string "false"',),
    ),
    Case("os-unknown", "environment.os", 8, ('must be one of "linux", "windows", got "macos"',)),
    Case(
        "legacy-memory-conflict",
        "environment.memory",
        8,
        ('legacy `environment.memory = "2G"` (2048 MB) conflicts', "memory_mb = 4096"),
    ),
    Case("legacy-storage-unparsable", "environment.storage", 8, ("must be a size such as",)),
    Case("subtask-weight-zero", "verifier.subtasks[0].weight", 9, ("must be > 0, got 0",)),
    Case("subtask-weight-negative", "verifier.subtasks[1].weight", 13, ("must be > 0, got -2",)),
    Case(
        "subtask-duplicate-name",
        "verifier.subtasks[1].name",
        11,
        ('subtask name "compiles" is declared twice', "unique name"),
    ),
    Case("subtask-missing-name", "verifier.subtasks[0].name", 7, ("missing required key",)),
    Case(
        "subtask-live-without-live-verifier",
        "verifier.subtasks[0].live",
        10,
        (
            'subtask "service" grades the agent\'s running services',
            "Set `live = true` in [verifier]",
        ),
    ),
    Case(
        "subtask-bad-visibility",
        "verifier.subtasks[0].visibility",
        9,
        ('must be one of "public", "hidden", got "secret"',),
    ),
    Case("pass-threshold-above-one", "verifier.pass_threshold", 8, ("must be <= 1, got 1.5",)),
    Case("pass-threshold-zero", "verifier.pass_threshold", 8, ("must be > 0, got 0",)),
    Case("max-passes-zero", "verifier.max_passes", 8, ("must be >= 1, got 0",)),
    Case("weak-max-reward-above-one", "verifier.weak_max_reward", 8, ("must be <= 1, got 1.5",)),
    Case("weak-max-reward-zero", "verifier.weak_max_reward", 8, ("must be > 0, got 0",)),
    Case(
        "weak-max-reward-string",
        "verifier.weak_max_reward",
        8,
        ('got string "0.3"', "Remove the quotes: weak_max_reward = 0.3"),
    ),
    Case("isolation-unknown", "verifier.isolation", 8, ('got "sandboxed"',)),
    Case("continue-mode-unknown", "agent.continue_mode", 9, ('got "resume"',)),
    Case("user-bool", "agent.user", 8, ("a user name or a numeric uid, got boolean true",)),
    Case("keywords-not-strings", "task.keywords[1]", 9, ("must be a non-empty string",)),
    Case("metadata-not-table", "metadata", 3, ("`metadata` must be a table",)),
    Case(
        "metadata-tier-unknown",
        "metadata.tier",
        5,
        ('`metadata.tier` must be one of "short", "long", got "lnog"', 'Did you mean "long"?'),
    ),
    Case("artifacts-not-array", "artifacts", 3, ('must be an array, got string "/app/out"',)),
    Case("artifact-entry-number", "artifacts[1]", 3, ("got integer 42",)),
    # isolation resolution
    Case(
        "isolation-conflict",
        "verifier.isolation",
        6,
        ('`verifier.isolation = "shared"` disagrees', 'environment_mode = "separate"'),
    ),
    Case(
        "live-snapshot",
        "verifier.live",
        7,
        ("`verifier.live = true` cannot verify a snapshot", 'isolation = "separate"'),
    ),
    Case(
        "live-with-continue",
        "verifier.live",
        8,
        ("`agent.continue_until_timeout = true` would let", "Drop `live`"),
    ),
    Case("live-not-bool", "verifier.live", 4, ("live = true or live = false",)),
    Case(
        "checkpoint-interval-zero",
        "verifier.checkpoint_interval_sec",
        4,
        ("must be > 0, got 0",),
    ),
    Case(
        "checkpoint-with-live",
        "verifier.checkpoint_interval_sec",
        6,
        ("checkpoints grade a still capture", "Drop `checkpoint_interval_sec`"),
    ),
    Case(
        "separate-without-artifacts",
        "verifier.environment_mode",
        9,
        ("declares no artifacts", "artifacts = [", 'isolation = "snapshot"'),
    ),
    Case(
        "isolation-separate-empty-artifacts",
        "verifier.isolation",
        6,
        ("declares no artifacts",),
    ),
    # env templates
    Case(
        "env-template-unclosed",
        "verifier.env.API_KEY",
        8,
        ("malformed template '${OPENAI_API_KEY'", "${VAR:-default}"),
    ),
    Case(
        "env-template-bad-name", "environment.env.DATA", 8, ("malformed template '${1DATA_DIR}'",)
    ),
    Case("env-value-not-string", "solution.env.PORT", 8, ("got integer 8080", 'PORT = "8080"')),
    Case("env-bad-variable-name", "verifier.env.MY-VAR", 8, ("not a valid environment variable",)),
    # schema version and [task]
    Case("schema-version-2", "schema_version", 1, ('task schema version "2.0" is not supported',)),
    Case("schema-version-float", "version", 1, ("must be a quoted string", 'version = "1.0"')),
    Case("version-and-schema-version", "version", 1, ("legacy `version` and `schema_version`",)),
    Case("task-name-not-org-name", "task.name", 8, ('"just-a-name" is not a package name',)),
    Case("task-section-without-name", "task.name", 7, ("missing required key `task.name`",)),
    Case(
        "task-behaviour-key",
        "task.timeout_sec",
        9,
        ("`timeout_sec` does nothing in [task]", "Move it to [agent] or [verifier]"),
    ),
    # MCP servers
    Case(
        "mcp-sse-without-url", "environment.mcp_servers[0].url", 7, ("uses sse but has no `url`",)
    ),
    Case(
        "mcp-stdio-without-command",
        "environment.mcp_servers[0].command",
        7,
        ("uses stdio but has no `command`",),
    ),
    # unsupported features
    Case(
        "multi-step",
        "steps[0].healthcheck",
        10,
        ("per-step `healthcheck` (steps[0].healthcheck) is not supported",),
        error=UnsupportedFeatureError,
    ),
    Case(
        "network-allowlist",
        "environment.network_mode",
        8,
        ("a network allowlist (environment.network_mode) is not supported",),
        error=UnsupportedFeatureError,
    ),
    Case(
        "network-phase-differs",
        "agent.network_mode",
        11,
        ("a network policy for one phase only (agent.network_mode) is not supported",),
        error=UnsupportedFeatureError,
    ),
    Case(
        "verifier-collect",
        "verifier.collect",
        7,
        ("running verifier collect commands (verifier.collect) is not supported",),
        error=UnsupportedFeatureError,
    ),
    # layout
    Case(
        "missing-instruction",
        None,
        None,
        ("missing instruction.md",),
        remove=("instruction.md",),
        file="instruction.md",
    ),
    Case(
        "instruction-only-canary",
        None,
        None,
        ("instruction.md is empty",),
        file="instruction.md",
    ),
    Case(
        "missing-test-script",
        None,
        None,
        ("missing tests/test.sh",),
        remove=("tests/test.sh",),
        file="tests/test.sh",
    ),
    Case(
        "missing-dockerfile",
        None,
        None,
        ("neither a Dockerfile nor a docker-compose.yaml", "docker_image"),
        remove=("environment/Dockerfile",),
        file="environment",
    ),
    Case(
        "compose-file-misnamed",
        None,
        None,
        ("Rename environment/docker-compose.yml to environment/docker-compose.yaml",),
        remove=("environment/Dockerfile",),
        file="environment",
    ),
    Case(
        "windows-without-test-bat",
        None,
        None,
        ("missing tests/test.bat",),
        file="tests/test.bat",
    ),
]


def build(case_name: str, tmp_path: Path, remove: tuple[str, ...] = ()) -> Path:
    """A task dir: the skeleton, the case's files on top, minus ``remove``."""
    task_dir = tmp_path / case_name
    shutil.copytree(INVALID / "_skeleton", task_dir)
    shutil.copytree(INVALID / case_name, task_dir, dirs_exist_ok=True)
    for relative in remove:
        (task_dir / relative).unlink()
    return task_dir


def test_corpus_is_large_and_complete() -> None:
    on_disk = {path.name for path in INVALID.iterdir() if not path.name.startswith("_")}
    assert len(CASES) >= 30
    assert on_disk == {case.name for case in CASES}


def test_skeleton_with_a_minimal_task_toml_loads(tmp_path: Path) -> None:
    task_dir = tmp_path / "minimal"
    shutil.copytree(INVALID / "_skeleton", task_dir)
    (task_dir / "task.toml").write_text('schema_version = "1.1"\n')
    task = lhtb.load_task(task_dir)
    assert task.name == "minimal"
    assert task.verifier.checkpoint_interval_sec is None
    (task_dir / "task.toml").write_text(
        'schema_version = "1.1"\n[verifier]\ncheckpoint_interval_sec = 600\n'
    )
    assert lhtb.load_task(task_dir).verifier.checkpoint_interval_sec == 600


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_malformed_task_fails_with_its_message(case: Case, tmp_path: Path) -> None:
    task_dir = build(case.name, tmp_path, case.remove)
    with pytest.raises(case.error) as caught:
        lhtb.load_task(task_dir)
    error = caught.value
    assert error.path == (task_dir / case.file).resolve()
    assert error.key == case.key
    assert error.line == case.line
    message = str(error)
    for fragment in case.fragments:
        assert fragment in message
    where = f"{error.path}:{case.line}" if case.line is not None else str(error.path)
    assert message.startswith(f"{where}: ")
    assert error.fix, "every error says what to do"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_load_tasks_reports_the_same_error(case: Case, tmp_path: Path) -> None:
    build(case.name, tmp_path, case.remove)
    with pytest.raises(lhtb.errors.TaskLoadErrors) as caught:
        lhtb.load_tasks(tmp_path)
    (error,) = caught.value.errors
    assert isinstance(error, case.error)
    assert error.key == case.key
