"""Suite-wide gates for the benchmark's own tasks in ``tasks/``.

Static checks (every task, no Docker needed to collect but marked like the rest):
the shared first image layer, artifacts + isolation, 5-30 declared subtasks,
metadata, the 90-minute budget, and that at least six tasks continue until
timeout.

The weak-solution gate (real Docker): each task ships a "public-checks-only"
solution in ``tests/weak_solution/`` and at least one shortcut (a blacklist,
hard-coded answers) in ``tests/weak_solution_<label>/``. Each is copied over
the root of the agent sandbox (``tests/weak_solution/app/x.py`` ->
``/app/x.py``), the agent stops, and the verifier runs once. The overall reward
must stay below 0.5, and the public-checks-only one must pass every public
subtask: that proves the hidden cases bite. (``lhtb check`` runs the same gate
and also re-grades each on its seed and on others.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lhtb
from lhtb._weak_gate import weak_solutions
from lhtb.check import WeakSolutionAgent
from lhtb.task import Task

pytestmark = [pytest.mark.docker, pytest.mark.anyio]

REPO = Path(__file__).resolve().parent.parent
TASKS_DIR = REPO / "tasks"
TASK_DIRS = sorted(p for p in TASKS_DIR.iterdir() if (p / "task.toml").is_file())
SHARED_LAYER = [
    "FROM debian:bookworm-slim",
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 procps "
    "ca-certificates && rm -rf /var/lib/apt/lists/*",
]
WEAK_DIR = Path("tests") / "weak_solution"
WEAK_BUDGET_SEC = 600


def _load(task_dir: Path) -> Task:
    return lhtb.load_task(task_dir)


# -- static ----------------------------------------------------------------------------------


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


def test_most_tasks_continue_until_timeout() -> None:
    tasks = [_load(path) for path in TASK_DIRS]
    continuing = [t.name for t in tasks if t.agent.continue_until_timeout]
    assert len(continuing) >= min(6, len(tasks)), (
        f"only {len(continuing)} of {len(tasks)} tasks continue until timeout: {continuing}"
    )


# -- weak-solution gate (Docker) ------------------------------------------------------------------


WEAK_CASES = [
    (task, weak)
    for task in TASK_DIRS
    for weak in sorted(p.name for p in (task / "tests").glob("weak_solution*") if p.is_dir())
]


@pytest.mark.parametrize(
    ("task_dir", "weak_name"), WEAK_CASES, ids=[f"{t.name}-{w}" for t, w in WEAK_CASES]
)
async def test_weak_solution_does_not_pass_the_task(
    task_dir: Path, weak_name: str, tmp_path: Path
) -> None:
    task = _load(task_dir)
    weak = task_dir / "tests" / weak_name
    episode = await lhtb.run_episode(
        task,
        WeakSolutionAgent(weak),
        budget=WEAK_BUDGET_SEC,
        continue_until_timeout=False,
        output_dir=tmp_path / "episode",
    )
    where = f"{task_dir.name}: no reward ({episode.outcome}); see {tmp_path / 'episode'}"
    assert episode.reward is not None, where
    assert episode.scorecard is not None, where
    public = {
        s.name: s.score
        for s in episode.scorecard.subtasks
        if str(getattr(s.visibility, "value", s.visibility)) == "public"
    }
    assert public, f"{task_dir.name}: the scorecard has no public subtasks"
    failing = {name: score for name, score in public.items() if score != 1.0}
    if weak_name == WEAK_DIR.name:
        assert not failing, (
            f"{task_dir.name}: the weak solution must pass every public check: {failing}"
        )
    assert episode.reward < 0.5, (
        f"{task_dir.name}: {weak_name} scores {episode.reward:.3f} (>= 0.5): "
        "the hidden cases do not bite"
    )
