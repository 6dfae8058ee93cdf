"""Loading Harbor / Terminal-Bench / LHTB task directories into :class:`~lhtb.task.Task`.

A task directory holds ``task.toml``, ``instruction.md``, ``environment/``
(a ``Dockerfile`` or ``docker-compose.yaml``; optional when
``[environment].docker_image`` names a prebuilt image), ``tests/test.sh`` and,
optionally, ``solution/solve.sh``. Validation is strict: every unknown key,
wrong type, bad value and missing file is reported, with its file, line and
a fix. See ``docs/task-format.md``.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import attrs

from lhtb._util.log import get_logger
from lhtb.errors import (
    TaskFormatError,
    TaskLoadErrors,
    TaskNotFoundError,
    UnsupportedFeatureError,
)
from lhtb.task._files import strip_canary, task_checksum
from lhtb.task._model import Step, Task
from lhtb.task._toml import KEY_HOMES, TaskToml, parse_task_toml
from lhtb.task._toml_lines import dotted, first_redefinition, key_lines
from lhtb.task._toml_reader import Reader

__all__ = ["load_runnable_tasks", "load_task", "load_tasks"]

log = get_logger(__name__)

TASK_FILE = "task.toml"
INSTRUCTION_FILE = "instruction.md"
_AT_LINE = re.compile(r" at line \d+ col \d+\Z")


def _not_found(root: Path) -> TaskNotFoundError:
    """The error for a path that does not exist, with the closest names next to it."""
    siblings = [p.name for p in root.parent.iterdir()] if root.parent.is_dir() else []
    close = difflib.get_close_matches(root.name, siblings, n=3, cutoff=0.6)
    fix = (
        "Did you mean " + " or ".join(str(root.parent / name) for name in close) + "?"
        if close
        else "Check the path and try again"
    )
    return TaskNotFoundError("no such task directory", where=str(root), fix=fix)


def load_task(path: str | Path) -> Task:
    """Load and validate one task directory (or its ``task.toml``).

    Raises:
        TaskNotFoundError: ``path`` does not exist or holds no ``task.toml``.
        TaskFormatError: the task breaks the format in one place (an
            :class:`~lhtb.errors.UnsupportedFeatureError` for multi-step tasks).
        TaskLoadErrors: the task breaks the format in several places; ``errors``
            lists each as a :class:`~lhtb.errors.TaskFormatError`.
    """
    root = Path(path)
    if root.is_file() and root.name == TASK_FILE:
        root = root.parent
    if not root.exists():
        raise _not_found(root)
    if not (root / TASK_FILE).is_file():
        has_children = root.is_dir() and any(_task_dirs(root))
        raise TaskNotFoundError(
            f"no {TASK_FILE} here, so this is not a task directory",
            where=str(root),
            fix="This directory holds several tasks: use lhtb.load_tasks() on it"
            if has_children
            else f"Point at a directory that holds {TASK_FILE}, {INSTRUCTION_FILE}, "
            "environment/ and tests/test.sh",
        )
    task, errors = _load(root)
    if len(errors) == 1:
        raise errors[0]
    if errors or task is None:
        raise TaskLoadErrors(errors)
    return task


def load_tasks(path: str | Path) -> list[Task]:
    """Load every task under ``path``: a task directory, or a directory of them.

    In a directory of tasks, every immediate subdirectory holding ``task.toml``
    is a task; they are loaded in order of their names. Every problem of every
    task is collected before anything is raised.

    Raises:
        TaskNotFoundError: ``path`` does not exist or holds no task.
        TaskLoadErrors: one or more tasks are invalid; ``errors`` lists every
            problem found (a :class:`~lhtb.errors.TaskFormatError` each).
    """
    tasks, errors, _ = _load_all(_dataset_dirs(path), skip_unsupported=False)
    if errors:
        raise TaskLoadErrors(errors)
    return tasks


def load_runnable_tasks(path: str | Path) -> tuple[list[Task], list[UnsupportedFeatureError]]:
    """Like :func:`load_tasks`, but a task that uses a feature lhtb cannot run is skipped.

    Returns the tasks and, for each skipped task, the error that says why (each
    is also logged as ``task_skipped``): a dataset holding a few such tasks
    still runs the rest.

    Raises:
        TaskNotFoundError: ``path`` does not exist or holds no task.
        TaskLoadErrors: a task is invalid, not merely unsupported.
    """
    tasks, errors, skipped = _load_all(_dataset_dirs(path), skip_unsupported=True)
    if errors:
        raise TaskLoadErrors(errors)
    for problem in skipped:
        log.info("task_skipped", path=str(problem.path), reason=str(problem))
    return tasks, skipped


def _dataset_dirs(path: str | Path) -> list[Path]:
    root = Path(path)
    if not root.exists():
        raise _not_found(root)
    if root.is_file() and root.name == TASK_FILE:
        root = root.parent
    task_dirs = [root] if (root / TASK_FILE).is_file() else _task_dirs(root)
    if not task_dirs:
        raise TaskNotFoundError(
            "no tasks found",
            where=str(root),
            fix=f"Point at a task directory (one holding {TASK_FILE}) or at a directory whose "
            f"subdirectories are task directories",
        )
    return task_dirs


def _load_all(
    task_dirs: list[Path], *, skip_unsupported: bool
) -> tuple[list[Task], list[TaskFormatError], list[UnsupportedFeatureError]]:
    """The tasks, every problem, and (when skipping) the unsupported tasks' errors."""
    tasks: list[Task] = []
    errors: list[TaskFormatError] = []
    skipped: list[UnsupportedFeatureError] = []
    seen: dict[str, Path] = {}
    for task_dir in task_dirs:
        task, task_errors = _load(task_dir)
        unsupported = [e for e in task_errors if isinstance(e, UnsupportedFeatureError)]
        if skip_unsupported and unsupported and len(unsupported) == len(task_errors):
            skipped.append(unsupported[0])
            continue
        errors.extend(task_errors)
        if task is None:
            continue
        if task.name in seen:
            errors.append(
                TaskFormatError(
                    f'task name "{task.name}" is also used by {seen[task.name]}',
                    path=task_dir / TASK_FILE,
                    key="task.name",
                    fix="Give every task a unique [task].name (or directory name)",
                )
            )
            continue
        seen[task.name] = task_dir
        tasks.append(task)
    return tasks, errors, skipped


def _task_dirs(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    children = (child for child in root.iterdir() if not child.name.startswith("."))
    return sorted(
        (child for child in children if child.is_dir() and (child / TASK_FILE).is_file()),
        key=lambda child: child.name,
    )


def _load(root: Path) -> tuple[Task | None, list[TaskFormatError]]:
    """Load one task directory; return the task or every problem found."""
    root = root.resolve()
    toml_path = root / TASK_FILE
    try:
        source = toml_path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        return None, [
            TaskFormatError(
                f"not valid UTF-8 ({error.reason})", path=toml_path, fix="Save it as UTF-8"
            )
        ]
    import tomlkit  # noqa: PLC0415 - loaded when a task is read, not with `lhtb.task`
    import tomlkit.exceptions  # noqa: PLC0415

    try:
        document = tomlkit.parse(source)
    except tomlkit.exceptions.ParseError as error:
        what = _AT_LINE.sub("", str(error))
        return None, [
            TaskFormatError(
                f"invalid TOML: {what} (column {error.col})",
                path=toml_path,
                line=error.line,
                fix=f"Fix the TOML syntax on line {error.line} (see https://toml.io)",
            )
        ]
    except tomlkit.exceptions.TOMLKitError as error:
        found = first_redefinition(source)
        return None, [
            TaskFormatError(
                f"invalid TOML: {str(error).rstrip('.')}",
                path=toml_path,
                line=found[1] if found else None,
                key=dotted(found[0]) if found else None,
                fix="Define each key and each [table] only once (see https://toml.io)",
            )
        ]
    reader = Reader(toml_path, key_lines(source), KEY_HOMES)
    try:
        config = parse_task_toml(reader, document.unwrap())
    except TaskFormatError as error:
        return None, [error]
    errors = sorted(reader.errors, key=lambda error: error.line or 0)
    if config.steps:
        steps = tuple(_step(root, step, errors) for step in config.steps)
        instruction: str | None = ""
    else:
        steps = ()
        instruction = _instruction(root / INSTRUCTION_FILE, errors)
    _check_layout(root, config, errors)
    if errors or instruction is None:
        return None, errors
    solution_dir = root / "solution"
    environment_dir = root / "environment"
    return (
        Task(
            name=config.info.name or root.name,
            instruction=instruction,
            environment=config.environment,
            agent=config.agent,
            verifier=config.verifier,
            solution=config.solution,
            artifacts=config.artifacts,
            metadata=config.metadata,
            info=config.info,
            schema_version=config.schema_version,
            source=config.source,
            path=root,
            environment_dir=environment_dir if environment_dir.is_dir() else None,
            tests_dir=root / "tests",
            solution_dir=solution_dir if solution_dir.is_dir() else None,
            checksum=task_checksum(root),
            steps=steps,
            step_reward=config.step_reward,
        ),
        [],
    )


def _step(root: Path, step: Step, errors: list[TaskFormatError]) -> Step:
    """``step`` with its files from ``steps/<name>/``."""
    directory = root / "steps" / step.name

    def optional(name: str) -> Path | None:
        path = directory / name
        return path if path.is_dir() else None

    return attrs.evolve(
        step,
        instruction=_instruction(directory / INSTRUCTION_FILE, errors) or "",
        tests_dir=optional("tests"),
        solution_dir=optional("solution"),
        workdir_dir=optional("workdir"),
    )


def _instruction(path: Path, errors: list[TaskFormatError]) -> str | None:
    if not path.is_file():
        errors.append(
            TaskFormatError(
                f"missing {INSTRUCTION_FILE}",
                path=path,
                fix=f"Write what the agent must do to {path.name} in {path.parent}",
            )
        )
        return None
    try:
        text = strip_canary(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        errors.append(
            TaskFormatError(f"not valid UTF-8 ({error.reason})", path=path, fix="Save it as UTF-8")
        )
        return None
    if not text.strip():
        errors.append(
            TaskFormatError(
                f"{INSTRUCTION_FILE} is empty (after removing canary lines)",
                path=path,
                fix="Write what the agent must do in it",
            )
        )
        return None
    return text


def _check_layout(root: Path, config: TaskToml, errors: list[TaskFormatError]) -> None:
    environment_dir = root / "environment"
    recipes = ("Dockerfile", "docker-compose.yaml")
    has_recipe = any((environment_dir / name).is_file() for name in recipes)
    if not has_recipe and config.environment.docker_image is None:
        fix = (
            "Add environment/Dockerfile (or environment/docker-compose.yaml with a `main` "
            'service), or set [environment].docker_image = "<image>" to use a prebuilt image'
        )
        if (environment_dir / "docker-compose.yml").is_file():
            fix = "Rename environment/docker-compose.yml to environment/docker-compose.yaml"
        where = environment_dir if environment_dir.is_dir() else root
        what = (
            "environment/ has neither a Dockerfile nor a docker-compose.yaml"
            if environment_dir.is_dir()
            else "missing environment/ directory"
        )
        errors.append(TaskFormatError(what, path=where, fix=fix))
    script = "test.bat" if config.environment.os == "windows" else "test.sh"
    test_script = root / "tests" / script
    steps_tested = config.steps and all(
        (root / "steps" / step.name / "tests" / script).is_file() for step in config.steps
    )
    if not test_script.is_file() and not steps_tested:
        errors.append(
            TaskFormatError(
                f"missing tests/{script}",
                path=test_script,
                fix=f"Add tests/{script}: it runs the hidden checks and writes "
                "/logs/verifier/scorecard.json, reward.json or reward.txt",
            )
        )
