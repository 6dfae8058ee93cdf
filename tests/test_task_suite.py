"""Suite-wide conventions for the benchmark's own tasks in ``tasks/`` (static, no Docker):
the shared first image layer, artifacts + isolation, 5-30 declared subtasks,
metadata, the 90-minute budget, the weak solutions every task ships, and that at
least six tasks continue until timeout.

Each task ships a "public-checks-only" solution in ``tests/weak_solution/`` and
at least one shortcut (a blacklist, hard-coded answers) in
``tests/weak_solution_<label>/``. Running them is ``lhtb check tasks/``'s
weak-solution gate (CI runs it before the tests, see ``.ci/run``): each scores
below 0.5, grades the same twice on one seed, and the public-checks-only one
passes every public subtask, which proves the hidden cases bite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lhtb
from lhtb.gates._weak_gate import weak_solutions
from lhtb.gates._weak_record import read_records
from lhtb.task import Task

REPO = Path(__file__).resolve().parent.parent
TASKS_DIR = REPO / "tasks"
TASK_DIRS = sorted(p for p in TASKS_DIR.iterdir() if (p / "task.toml").is_file())
SHARED_LAYER = [
    "FROM debian:bookworm-slim",
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 procps "
    "ca-certificates && rm -rf /var/lib/apt/lists/*",
]
WEAK_DIR = Path("tests") / "weak_solution"
WEAK_RECORD = TASKS_DIR / "weak-gate.json"


def _load(task_dir: Path) -> Task:
    return lhtb.load_task(task_dir)


@pytest.mark.parametrize("path", TASK_DIRS, ids=[p.name for p in TASK_DIRS])
def test_dockerfile_starts_with_the_shared_layer(path: Path) -> None:
    lines = [
        line.strip()
        for line in (path / "environment" / "Dockerfile").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines[:2] == SHARED_LAYER, f"{path.name}: Dockerfile must start with the shared layer"


@pytest.mark.parametrize("path", TASK_DIRS, ids=[p.name for p in TASK_DIRS])
def test_task_declares_the_suite_conventions(path: Path) -> None:
    task = _load(path)
    assert task.artifacts, f"{path.name}: declare artifacts"
    isolation = str(getattr(task.verifier.isolation, "value", task.verifier.isolation))
    readme = (path / "README.md").read_text() if (path / "README.md").is_file() else ""
    assert isolation == "separate" or (isolation == "shared" and "shared" in readme.lower()), (
        f"{path.name}: isolation must be 'separate', or 'shared' with the reason in README.md"
    )
    assert 5 <= len(task.verifier.subtasks) <= 30, f"{path.name}: 5 to 30 subtasks"
    visibilities = {
        str(getattr(s.visibility, "value", s.visibility)) for s in task.verifier.subtasks
    }
    assert visibilities == {"public", "hidden"}, f"{path.name}: needs public and hidden subtasks"
    for key in ("category", "difficulty", "tags"):
        assert task.metadata.get(key), f"{path.name}: [metadata].{key} is missing"
    assert task.agent.timeout_sec == 5400, f"{path.name}: [agent].timeout_sec must be 5400"
    assert (path / "solution" / "solve.sh").is_file(), f"{path.name}: solution/solve.sh"
    assert (path / "tests" / "test.sh").is_file(), f"{path.name}: tests/test.sh"
    weak = path / WEAK_DIR
    where = f"{path.name}: the weak solution belongs in {WEAK_DIR}/ (copied over /)"
    assert weak.is_dir(), where
    assert any(p.is_file() for p in weak.rglob("*")), where
    shortcuts = [p.name for p in weak_solutions(task) if p.name != WEAK_DIR.name]
    assert shortcuts, f"{path.name}: add a shortcut weak solution in tests/weak_solution_<label>/"
    for name in shortcuts:
        assert any(p.is_file() for p in (path / "tests" / name).rglob("*")), f"{path.name}: {name}"
    assert "## Weak solution" in readme, f"{path.name}: README.md needs a 'Weak solution' section"


@pytest.mark.parametrize("path", TASK_DIRS, ids=[p.name for p in TASK_DIRS])
def test_the_weak_gate_record_is_of_this_very_task(path: Path) -> None:
    """CI skips the weak gate of a task whose files are exactly those of its passing record."""
    task = _load(path)
    record = read_records(WEAK_RECORD).get(task.name)
    rerun = f"run `lhtb check tasks/{path.name} --record tasks/weak-gate.json` and commit it"
    assert record is not None, f"{path.name}: no weak-gate record; {rerun}"
    assert record.holds_for(task), f"{path.name}: changed since its weak-gate record; {rerun}"
    assert {w.name for w in record.weak} == {p.name for p in weak_solutions(task)}, rerun
    assert all(w.reward < task.verifier.weak_max_reward for w in record.weak)


@pytest.mark.parametrize("path", TASK_DIRS, ids=[p.name for p in TASK_DIRS])
def test_long_horizon_tasks_hold_their_weak_solutions_below_0_3(path: Path) -> None:
    """The v2 rule: a task of three expert hours or more declares the 0.3 weak gate."""
    task = _load(path)
    if int(task.metadata["expert_time_estimate_min"]) < 180:
        assert task.verifier.weak_max_reward == 0.5, f"{path.name}: a v1 task keeps 0.5"
    else:
        assert task.verifier.weak_max_reward <= 0.3, (
            f"{path.name}: declare `weak_max_reward = 0.3` in [verifier]"
        )


def test_most_tasks_continue_until_timeout() -> None:
    tasks = [_load(path) for path in TASK_DIRS]
    continuing = [t.name for t in tasks if t.agent.continue_until_timeout]
    assert len(continuing) >= min(6, len(tasks)), (
        f"only {len(continuing)} of {len(tasks)} tasks continue until timeout: {continuing}"
    )
