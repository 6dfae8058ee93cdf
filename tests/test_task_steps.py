"""Loading Harbor multi-step tasks (``[[steps]]``), and skipping the tasks lhtb cannot run."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

import lhtb
from lhtb.cli.run import load_task_args
from lhtb.errors import TaskFormatError, TaskLoadErrors, UnsupportedFeatureError
from lhtb.task import load_runnable_tasks

FIXTURES = Path(__file__).parent / "fixtures" / "harbor"


def multi_step(root: Path, toml_extra: str = "") -> Path:
    """A copy of the ``multi-step`` fixture under ``root``, with ``toml_extra`` appended."""
    task = root / "multi"
    shutil.copytree(FIXTURES / "multi-step", task)
    if toml_extra:
        with (task / "task.toml").open("a") as toml:
            toml.write(textwrap.dedent(toml_extra))
    return task


def plain(root: Path) -> Path:
    task = root / "plain"
    shutil.copytree(FIXTURES / "oracle-agent-user", task)
    return task


def test_steps_load_with_their_files() -> None:
    task = lhtb.load_task(FIXTURES / "multi-step")
    write, extend = task.steps
    assert task.instruction == ""
    assert task.step_reward is lhtb.task.StepReward.MEAN
    assert write.instruction.startswith("Write the line `one`")
    assert (write.min_reward, write.workdir_dir) == (1.0, None)
    assert extend.verifier_env == {"EXPECTED_LINES": "2"}
    assert extend.workdir_dir is not None
    assert (extend.workdir_dir / "setup.sh").is_file()
    assert extend.solution_dir is not None
    assert (extend.solution_dir / "solve.sh").is_file()


def test_a_step_without_instruction_or_tests_is_an_error(tmp_path: Path) -> None:
    task = multi_step(tmp_path)
    (task / "steps" / "extend" / "instruction.md").unlink()
    (task / "steps" / "write" / "tests" / "test.sh").unlink()
    with pytest.raises(TaskLoadErrors) as caught:
        lhtb.load_task(task)
    messages = [str(error) for error in caught.value.errors]
    assert any("steps/extend/instruction.md" in m for m in messages), messages
    assert any("missing tests/test.sh" in m for m in messages), messages


def test_duplicate_step_names_are_an_error(tmp_path: Path) -> None:
    task = multi_step(tmp_path, '\n[[steps]]\nname = "write"\n')
    with pytest.raises(TaskFormatError, match='step name "write" is declared twice'):
        lhtb.load_task(task)


@pytest.mark.parametrize(
    ("extra", "what"),
    [
        ("\n[steps.healthcheck]\ncommand = 'true'\n", "per-step `healthcheck`"),
        ("\n[steps.verifier.environment]\ncpus = 2\n", "a per-step verifier environment"),
        ("\n[steps.min_reward]\naccuracy = 0.5\n", "`min_reward` on reward keys"),
    ],
)
def test_step_features_lhtb_does_not_run_are_unsupported(
    tmp_path: Path, extra: str, what: str
) -> None:
    task = multi_step(tmp_path, extra)
    with pytest.raises(UnsupportedFeatureError, match="not supported") as caught:
        lhtb.load_task(task)
    assert what in str(caught.value)


def test_continue_until_timeout_with_steps_is_unsupported(tmp_path: Path) -> None:
    task = multi_step(tmp_path)
    toml = (task / "task.toml").read_text()
    (task / "task.toml").write_text(
        toml.replace("timeout_sec = 120", "timeout_sec = 120\ncontinue_until_timeout = true", 1)
    )
    with pytest.raises(UnsupportedFeatureError, match="continue until timeout"):
        lhtb.load_task(task)


def test_a_dataset_skips_the_tasks_lhtb_cannot_run(tmp_path: Path) -> None:
    plain(tmp_path)
    multi_step(tmp_path, "\n[steps.healthcheck]\ncommand = 'true'\n")
    with pytest.raises(TaskLoadErrors):
        lhtb.load_tasks(tmp_path)  # strict: the whole dataset is refused
    tasks, skipped = load_runnable_tasks(tmp_path)
    assert [t.name for t in tasks] == ["plain"]
    assert [type(e) for e in skipped] == [UnsupportedFeatureError]
    assert skipped[0].path == tmp_path / "multi" / "task.toml"


def test_lhtb_run_warns_and_counts_skipped_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain(tmp_path)
    multi_step(tmp_path, "\n[steps.healthcheck]\ncommand = 'true'\n")
    tasks = load_task_args((tmp_path,))
    assert [t.name for t in tasks] == ["plain"]
    err = capsys.readouterr().err
    assert "skipped 1 of 2 task(s) that lhtb cannot run" in err
    assert "per-step `healthcheck`" in err


def test_a_broken_task_still_refuses_the_dataset(tmp_path: Path) -> None:
    plain(tmp_path)
    broken = multi_step(tmp_path)
    (broken / "steps" / "write" / "instruction.md").unlink()
    with pytest.raises(TaskLoadErrors):
        load_runnable_tasks(tmp_path)
