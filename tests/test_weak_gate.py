"""The weak-solution gate of ``lhtb check`` on the in-memory backend: the public-checks-only
``weak_solution`` must pass every public subtask (the hidden ones are what must fail it);
other shortcuts need not; each must score below its task's ``weak_max_reward``. (Re-grading
needs a task directory, which the fake task has not: tests/test_grading_seed.py covers that
part of the gate on Docker.) The nop gate of ``lhtb check`` is here too."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

import lhtb
from episode_fixtures import make
from lhtb.gates import TaskCheck, WeakSolutionAgent
from lhtb.gates._weak_gate import check_weak_solutions
from lhtb.testing import FakeBackend, ScriptedPass, fake_task

pytestmark = pytest.mark.anyio


def grade(files: dict[str, bytes]) -> ScriptedPass:
    """Public check: /app/public.txt says ok; hidden check: never passed."""
    public = 1.0 if files.get("/app/public.txt", b"").strip() == b"ok" else 0.5
    subtasks = [
        {"name": "public-check", "score": public, "visibility": "public"},
        {"name": "hidden-cases", "score": 0.0, "weight": 3, "visibility": "hidden"},
    ]
    return ScriptedPass(scorecard={"subtasks": subtasks})


def write_weak(task_dir: Path, name: str, answer: str) -> None:
    app = task_dir / "tests" / name / "app"
    app.mkdir(parents=True)
    (app / "public.txt").write_text(answer + "\n")


@pytest.mark.parametrize(("answer", "passes_gate"), [("ok", True), ("wrong", False)])
async def test_the_public_checks_only_solution_must_pass_the_public_checks(
    tmp_path: Path, answer: str, passes_gate: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    task = fake_task(tmp_path / "task", isolation="separate", artifacts=["/app"])
    write_weak(tmp_path / "task", "weak_solution", answer)
    write_weak(tmp_path / "task", "weak_solution_shortcut", "wrong")
    checks = await check_weak_solutions(
        [task],
        output_dir=tmp_path / "weak",
        backend=FakeBackend([grade]),
        concurrency=1,
        progress="quiet",
        stagger_sec=0,
        spread_seeds=1,
    )
    weak, shortcut = checks[task.name]
    said = capsys.readouterr().err
    assert "re-grading 2 weak solutions on 1 seed(s) each" in said
    assert "re-graded 2/2: fake-task " in said
    assert (weak.name, shortcut.name) == ("weak_solution", "weak_solution_shortcut")
    assert weak.reward is not None
    assert weak.reward < 0.5
    public_rule = "weak_solution: must pass every public check, fails {'public-check': 0.5}"
    graded = attrs.evolve(weak, error=None)  # the re-grading's own verdict aside
    assert shortcut.failing_public == {"public-check": 0.5}
    assert not any("public check" in p for p in attrs.evolve(shortcut, error=None).problems)
    if passes_gate:
        assert weak.failing_public == {}
        assert public_rule not in graded.problems
    else:
        assert weak.failing_public == {"public-check": 0.5}
        assert public_rule in graded.problems


async def test_the_weak_solution_agent_takes_its_directory_as_cli_text(tmp_path: Path) -> None:
    """``lhtb run --agent lhtb.gates:WeakSolutionAgent --ak root=DIR`` passes DIR as text."""
    task = fake_task(tmp_path / "task", isolation="separate", artifacts=["/app"])
    write_weak(tmp_path / "task", "weak_solution", "ok")
    backend = FakeBackend([grade])
    agent = WeakSolutionAgent(str(tmp_path / "task" / "tests" / "weak_solution"))
    episode = await lhtb.run_episode(
        task, agent, backend=backend, continue_until_timeout=False, output_dir=tmp_path / "ep"
    )
    assert episode.error is None, episode.error
    assert backend.agent_sandbox.files["/app/public.txt"] == b"ok\n"


@pytest.mark.parametrize(("declared", "fails"), [(None, False), (0.3, True)])
async def test_a_weak_solution_must_stay_under_its_tasks_gate(
    tmp_path: Path, declared: float | None, fails: bool
) -> None:
    """A shortcut scoring 0.31 passes the default gate (0.5) and fails a task declaring 0.3."""
    task = fake_task(tmp_path / "task", isolation="separate", artifacts=["/app"])
    if declared is not None:
        task = attrs.evolve(task, verifier=attrs.evolve(task.verifier, weak_max_reward=declared))
    write_weak(tmp_path / "task", "weak_solution_shortcut", "wrong")
    checks = await check_weak_solutions(
        [task],
        output_dir=tmp_path / "weak",
        backend=FakeBackend([0.31]),
        concurrency=1,
        progress="none",
        stagger_sec=0,
        spread_seeds=1,
    )
    [shortcut] = checks[task.name]
    assert shortcut.reward == pytest.approx(0.31)
    assert shortcut.max_reward == (declared or 0.5)
    gate = "weak_solution_shortcut: scores 0.310 (must stay < 0.3)"
    assert (gate in attrs.evolve(shortcut, error=None).problems) is fails


@pytest.mark.parametrize(("reward", "passes"), [(0.049, True), (0.05, False), (0.068, False)])
def test_the_nop_agent_must_score_below_0_05_whatever_the_threshold(
    reward: float, passes: bool
) -> None:
    """The nop gate is 0.05, not the task's pass threshold (0.95 here)."""
    check = TaskCheck(
        task="t1", threshold=0.95, oracle=make("t1", "oracle", 1.0), nop=make("t1", "nop", reward)
    )
    assert check.nop_passed is passes
    assert check.problems == (
        () if passes else (f"nop must get a reward below 0.05: unsolved, reward {reward:.3f}",)
    )
