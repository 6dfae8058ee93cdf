"""Loading real-looking Harbor, Terminal-Bench 2, LHTB and lhtb task directories."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import lhtb
from lhtb.errors import TaskFormatError, TaskLoadErrors, TaskNotFoundError
from lhtb.task import ContinueMode, IsolationMode, Visibility

FIXTURES = Path(__file__).parent / "fixtures" / "tasks"
VALID = FIXTURES / "valid"
SKELETON = FIXTURES / "invalid" / "_skeleton"


def make_task(root: Path, name: str, toml: str) -> Path:
    """A minimal valid task dir (the corpus skeleton) with the given task.toml."""
    task_dir = root / name
    shutil.copytree(SKELETON, task_dir)
    (task_dir / "task.toml").write_text(toml)
    return task_dir


# -- valid fixtures ----------------------------------------------------------------------------


def test_terminal_bench_2_task() -> None:
    task = lhtb.load_task(VALID / "tb2-fix-git")
    assert task.name == "tb2-fix-git"
    assert task.schema_version == "1.1"
    assert task.metadata["author_name"] == "Jane Doe"
    assert task.metadata["tags"] == ["git", "version-control"]
    assert task.category == "software-engineering"
    assert task.budget_sec == 1800.0
    assert task.verifier.timeout_sec == 900.0
    assert task.environment.docker_image == "ghcr.io/example-bench/fix-git:20250601"
    assert (task.environment.cpus, task.environment.memory_mb) == (1, 2048)
    assert task.verifier.isolation is IsolationMode.SHARED
    assert task.instruction.startswith("The repository in /app/repo")
    assert "canary" not in task.instruction
    assert task.path == (VALID / "tb2-fix-git").resolve()
    assert task.environment_dir == task.path / "environment"
    assert task.tests_dir == task.path / "tests"
    assert task.solution_dir == task.path / "solution"
    assert len(task.checksum) == 64


def test_legacy_harbor_task_with_version_and_memory_strings() -> None:
    task = lhtb.load_task(VALID / "legacy-csv-report")
    assert task.schema_version == "1.0"
    assert task.environment.memory_mb == 2048
    assert task.environment.storage_mb == 512
    assert task.environment.build_timeout_sec == 300
    assert task.solution_dir is None
    assert task.agent.continue_until_timeout is False


def test_lhtb_task_with_artifacts_and_separate_verifier() -> None:
    task = lhtb.load_task(VALID / "lhtb-langchain-migration")
    assert task.name == "lhtb/langchain-version-migration"
    assert task.info.description.startswith("Migrate a LangChain")
    assert [artifact.source for artifact in task.artifacts] == ["/app/src", "/app/pyproject.toml"]
    assert task.agent.continue_until_timeout is True
    assert task.agent.timeout_sec == 5400
    assert task.verifier.isolation is IsolationMode.SEPARATE
    verifier_env = task.verifier.environment
    assert verifier_env is not None
    assert verifier_env.allow_internet is False
    assert (verifier_env.cpus, verifier_env.memory_mb) == (2, 4096)
    assert task.environment.workdir == "/app"
    assert task.environment.storage_mb == 20480
    assert task.environment_dir is None  # prebuilt image, no environment/ dir
    assert task.verifier.env == {"OPENAI_API_KEY": "${OPENAI_API_KEY:-sk-test}"}


def test_compose_task_with_healthcheck_and_mcp_servers() -> None:
    task = lhtb.load_task(VALID / "compose-api-cache")
    assert task.name == "contrib/api-cache"
    assert task.schema_version == "1.2"
    assert task.source == "terminal-bench-contrib"
    assert task.info.authors == (
        {"name": "Sam Lee", "email": "sam@example.com"},
        {"name": "Ana Ruiz"},
    )
    assert task.info.keywords == ("redis", "http", "caching")
    assert task.agent.user == "agent"
    assert task.verifier.user == "root"
    assert task.environment.os == "linux"
    healthcheck = task.environment.healthcheck
    assert healthcheck is not None
    assert healthcheck.command == "redis-cli -h cache ping"
    assert (healthcheck.interval_sec, healthcheck.timeout_sec, healthcheck.retries) == (2.0, 60, 10)
    assert healthcheck.start_interval_sec == 5.0  # default
    docs, helper = task.environment.mcp_servers
    assert (docs.transport, docs.url) == ("streamable-http", "http://docs:8080/mcp")
    assert (helper.transport, helper.command, helper.args) == (
        "stdio",
        "/usr/local/bin/helper-mcp",
        ("--read-only",),
    )


def test_lhtb_native_task_with_subtasks() -> None:
    task = lhtb.load_task(VALID / "lhtb-native-log-audit")
    assert task.name == "lhtb/log-audit"
    assert task.agent.continue_mode is ContinueMode.RESTART
    assert task.verifier.isolation is IsolationMode.SEPARATE
    assert task.verifier.pass_threshold == 0.9
    assert task.verifier.max_passes == 5
    assert [(s.name, s.weight, s.visibility) for s in task.verifier.subtasks] == [
        ("format", 1, Visibility.PUBLIC),
        ("anomalies", 3.5, Visibility.HIDDEN),
        ("no-false-positives", 1.5, Visibility.HIDDEN),
    ]
    assert task.verifier.subtasks[0].description.startswith("findings.json")
    notes = task.artifacts[1]
    assert (notes.source, notes.target, notes.exclude) == (
        "/app/notes",
        "/submission/notes",
        ("*.tmp", "cache/"),
    )
    assert task.solution.env == {"ORACLE_SEED": "${ORACLE_SEED:-7}"}
    # both leading canary lines and the blank line after them are gone
    assert task.instruction.startswith("# Log audit\n")


def test_a_task_declares_a_stricter_weak_solution_gate(tmp_path: Path) -> None:
    task = lhtb.load_task(make_task(tmp_path, "strict", "[verifier]\nweak_max_reward = 0.3\n"))
    assert task.verifier.weak_max_reward == 0.3


def test_defaults_when_keys_are_absent(tmp_path: Path) -> None:
    task = lhtb.load_task(make_task(tmp_path, "bare", 'schema_version = "1.1"\n'))
    assert task.agent.timeout_sec is None
    assert task.verifier.timeout_sec == 600.0
    assert task.verifier.pass_threshold == 0.95
    assert task.verifier.max_passes is None
    assert task.verifier.weak_max_reward == 0.5
    assert task.verifier.isolation is IsolationMode.SHARED
    assert task.environment.memory_mb == 2048
    assert task.metadata == {}
    assert task.info.name is None


def test_task_toml_path_is_accepted(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path, "direct", "")
    assert lhtb.load_task(task_dir / "task.toml").name == "direct"


def test_prebuilt_image_needs_no_environment_dir(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path, "prebuilt", '[environment]\ndocker_image = "alpine:3"\n')
    shutil.rmtree(task_dir / "environment")
    assert lhtb.load_task(task_dir).environment_dir is None


def test_missing_environment_dir_without_image_is_an_error(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path, "no-env", "")
    shutil.rmtree(task_dir / "environment")
    with pytest.raises(TaskFormatError, match="missing environment/ directory"):
        lhtb.load_task(task_dir)


def test_several_problems_in_one_task_are_all_reported(tmp_path: Path) -> None:
    task_dir = make_task(
        tmp_path, "many", "[agent]\ntimout_sec = 1\n\n[verifier]\ntimeout_sec = -1\n"
    )
    (task_dir / "tests" / "test.sh").unlink()
    with pytest.raises(TaskLoadErrors) as caught:
        lhtb.load_task(task_dir)
    keys = [error.key for error in caught.value.errors if isinstance(error, TaskFormatError)]
    assert keys == ["agent.timout_sec", "verifier.timeout_sec", None]
    assert "tests/test.sh" in str(caught.value)


# -- isolation resolution ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("", IsolationMode.SHARED),
        ('artifacts = ["/app/out"]\n', IsolationMode.SEPARATE),
        (
            'artifacts = ["/app/out"]\n[verifier]\nenvironment_mode = "shared"\n',
            IsolationMode.SHARED,
        ),
        (
            'artifacts = ["/app/out"]\n[verifier]\nenvironment_mode = "separate"\n',
            IsolationMode.SEPARATE,
        ),
        ('[verifier]\nenvironment_mode = "shared"\n', IsolationMode.SHARED),
        ('[verifier]\nisolation = "snapshot"\n', IsolationMode.SNAPSHOT),
        ('artifacts = ["/app/out"]\n[verifier]\nisolation = "snapshot"\n', IsolationMode.SNAPSHOT),
        ('artifacts = ["/a"]\n[verifier]\nisolation = "shared"\n', IsolationMode.SHARED),
        (
            'artifacts = ["/a"]\n[verifier]\nisolation = "separate"\n'
            'environment_mode = "separate"\n',
            IsolationMode.SEPARATE,
        ),
    ],
)
def test_isolation_resolution(tmp_path: Path, toml: str, expected: IsolationMode) -> None:
    task = lhtb.load_task(make_task(tmp_path, "iso", toml))
    assert task.verifier.isolation is expected


def test_snapshot_disagrees_with_lhtb_separate(tmp_path: Path) -> None:
    toml = 'artifacts = ["/a"]\n[verifier]\nisolation = "snapshot"\nenvironment_mode = "separate"\n'
    with pytest.raises(TaskFormatError, match="disagrees") as caught:
        lhtb.load_task(make_task(tmp_path, "iso", toml))
    assert caught.value.line == 3


# -- templating ------------------------------------------------------------------------------


def test_env_templates_are_kept_raw_and_resolved_at_run_time(tmp_path: Path) -> None:
    toml = (
        "[environment.env]\n"
        'DATA = "${DATA_DIR:-/data}/input"\n'
        'TOKEN = "${API_TOKEN}"\n'
        'PLAIN = "$HOME stays literal"\n'
    )
    task = lhtb.load_task(make_task(tmp_path, "tmpl", toml))
    assert task.environment.env["DATA"] == "${DATA_DIR:-/data}/input"
    resolved = lhtb.task.resolve_env(task.environment.env, {"API_TOKEN": "t0k"})
    assert resolved == {"DATA": "/data/input", "TOKEN": "t0k", "PLAIN": "$HOME stays literal"}
    with pytest.raises(lhtb.errors.EnvTemplateError, match="API_TOKEN"):
        lhtb.task.resolve_env(task.environment.env, {})


@pytest.mark.parametrize("value", ["${", "${}", "${1X}", "${A B}", "${VAR:default}", "x${Y"])
def test_malformed_templates_are_load_errors(tmp_path: Path, value: str) -> None:
    toml = f"[verifier.env]\nX = '{value}'\n"
    with pytest.raises(TaskFormatError, match="malformed template") as caught:
        lhtb.load_task(make_task(tmp_path, "tmpl", toml))
    assert (caught.value.key, caught.value.line) == ("verifier.env.X", 2)


# -- load_tasks --------------------------------------------------------------------------------


def test_load_tasks_loads_every_valid_fixture_sorted_by_directory() -> None:
    tasks = lhtb.load_tasks(VALID)
    assert [task.path.name for task in tasks if task.path] == sorted(
        path.name for path in VALID.iterdir()
    )
    assert len(tasks) == 5


def test_load_tasks_on_a_task_dir_returns_that_task() -> None:
    (task,) = lhtb.load_tasks(VALID / "tb2-fix-git")
    assert task.name == "tb2-fix-git"


def test_load_tasks_reports_every_broken_task(tmp_path: Path) -> None:
    make_task(tmp_path, "a-good", "")
    make_task(tmp_path, "b-bad", "[agent]\ntimout_sec = 1\n")
    make_task(tmp_path, "c-worse", "[verifier]\ntimeout_sec = 0\n[environment]\ncpus = -1\n")
    (tmp_path / "not-a-task").mkdir()
    with pytest.raises(TaskLoadErrors) as caught:
        lhtb.load_tasks(tmp_path)
    errors = caught.value.errors
    assert [(e.path.parent.name, e.key) for e in errors if isinstance(e, TaskFormatError)] == [
        ("b-bad", "agent.timout_sec"),
        ("c-worse", "verifier.timeout_sec"),
        ("c-worse", "environment.cpus"),
    ]
    assert "3 task problem(s) found" in str(caught.value)


def test_task_section_keeps_keys_harbor_ignores(tmp_path: Path) -> None:
    make_task(
        tmp_path,
        "pkg",
        '[task]\nname = "org/pkg"\nversion = "1.2.0"\nformat = "single_turn"\nworkstream = "swe"\n',
    )
    info = lhtb.load_task(tmp_path / "pkg").info
    assert (info.name, info.version) == ("org/pkg", "1.2.0")
    assert info.extra == {"format": "single_turn", "workstream": "swe"}


def test_load_tasks_rejects_duplicate_task_names(tmp_path: Path) -> None:
    make_task(tmp_path, "one", '[task]\nname = "org/same"\n')
    make_task(tmp_path, "two", '[task]\nname = "org/same"\n')
    with pytest.raises(TaskLoadErrors, match='task name "org/same" is also used'):
        lhtb.load_tasks(tmp_path)


def test_load_tasks_on_a_directory_without_tasks(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskNotFoundError, match="no tasks found") as caught:
        lhtb.load_tasks(tmp_path)
    assert caught.value.fix is not None
    assert "task.toml" in caught.value.fix


@pytest.mark.parametrize("loader", [lhtb.load_task, lhtb.load_tasks])
def test_missing_path_is_task_not_found(tmp_path: Path, loader: object) -> None:
    with pytest.raises(TaskNotFoundError, match="no such task directory"):
        loader(tmp_path / "nope")  # type: ignore[operator]


def test_load_task_on_a_collection_points_to_load_tasks() -> None:
    with pytest.raises(TaskNotFoundError, match=r"use lhtb\.load_tasks"):
        lhtb.load_task(VALID)


@pytest.mark.parametrize(
    ("legacy", "megabytes"),
    [("512M", 512), ("2G", 2048), ("1.5G", 1536), ("2GiB", 2048), ("1t", 1048576), ("2048K", 2)],
)
def test_legacy_memory_strings_become_megabytes(
    tmp_path: Path, legacy: str, megabytes: int
) -> None:
    toml = f'[environment]\nmemory = "{legacy}"\nstorage = "{legacy}"\n'
    task = lhtb.load_task(make_task(tmp_path, "legacy", toml))
    assert (task.environment.memory_mb, task.environment.storage_mb) == (megabytes, megabytes)


def test_legacy_memory_agreeing_with_memory_mb_is_fine(tmp_path: Path) -> None:
    toml = '[environment]\nmemory = "4G"\nmemory_mb = 4096\n'
    assert lhtb.load_task(make_task(tmp_path, "legacy", toml)).environment.memory_mb == 4096
