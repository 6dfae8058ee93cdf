"""``lhtb grade TASK --from DIR --seed N`` scores DIR as an episode leaving it would."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import lhtb
from lhtb.cli import main
from lhtb.gates import WeakSolutionAgent
from lhtb.sandbox.base import SandboxBackend
from lhtb.verify import read_scorecard

REPO = Path(__file__).resolve().parent.parent
TASK = REPO / "tasks" / "climate-extremes"
WEAK = TASK / "tests" / "weak_solution"
SEED = 4242


@pytest.mark.slow
def test_grade_prints_the_reward_of_an_episode_with_the_same_seed(
    sandbox_backend: SandboxBackend, tmp_path: Path
) -> None:
    backend = sandbox_backend.name
    episode = lhtb.run_episode_sync(
        lhtb.load_task(TASK),
        WeakSolutionAgent(WEAK),
        backend=backend,
        seed=SEED,
        budget=600,
        continue_until_timeout=False,
        output_dir=tmp_path / "episode",
    )
    assert episode.reward is not None, (episode.outcome, episode.error)
    args = ["grade", str(TASK), "--from", str(WEAK), "--seed", str(SEED), "--backend", backend]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "grade")])
    assert result.exit_code == 0, result.output
    assert f"reward: {episode.reward:.4f} (failed; pass threshold 0.95)" in result.output
    for subtask in ("cli_contract", "threshold_accuracy"):
        assert re.search(rf"{subtask}\s.*\d\.\d{{3}}", result.output), result.output
    logs = re.search(r"seed: 4242  logs: (\S+)", result.output)
    assert logs is not None, result.output
    assert read_scorecard(Path(logs.group(1))).reward == episode.reward


def test_grade_reports_a_bad_directory_without_a_traceback(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["grade", str(TASK), "--from", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
