"""`lhtb run` and friends as a user meets them: flags, help, errors under the results table."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import lhtb
from lhtb.bench import BenchmarkAgent
from lhtb.cli import COMMANDS, main
from lhtb.cli.run import parse_agent_args

SRC = Path(__file__).resolve().parents[1] / "src"

AGENTS_MODULE = '''
import lhtb

class Answer:
    """Writes its `answer` argument; needs it."""

    def __init__(self, answer: str, model: str | None = None) -> None:
        self.answer = answer
        self.model = model

    async def run(self, turn: lhtb.Turn) -> None:
        await turn.sandbox.exec(["sh", "-c", f"echo {self.answer} > /app/answer.txt"])


def broken():
    raise RuntimeError("no API key in this sandbox")
'''


@pytest.fixture
def task_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A continue-until-timeout task solved by writing 42; an importable agents module."""
    (tmp_path / "cli_test_agents.py").write_text(AGENTS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    root = tmp_path / "tasks" / "answer"
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app\n"
    )
    (root / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (root / "tests" / "test.sh").write_text(
        '#!/bin/sh\n[ "$(cat /app/answer.txt)" = 42 ] && r=1 || r=0\n'
        "echo $r > /logs/verifier/reward.txt\n"
    )
    (root / "task.toml").write_text(
        textwrap.dedent(
            """\
            [agent]
            timeout_sec = 60
            continue_until_timeout = true
            [verifier]
            timeout_sec = 30
            max_passes = 3
            """
        )
    )
    return root


def lhtb_run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(main, ["run", *args, "--backend", "local", "--quiet"])


def records(out: Path) -> list[lhtb.Episode]:
    return [lhtb.Episode.load(p) for p in sorted(out.glob("*/episode.json"))]


def test_agent_arguments_and_the_model_per_agent(
    task_dir: Path, tmp_path: Path, local_backend: object
) -> None:
    out = tmp_path / "run"
    result = lhtb_run(
        str(task_dir), "--agent", "cli_test_agents:Answer", "--ak", "answer=42",
        "--model", "m-1", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    [episode] = records(out)
    assert (str(episode.outcome), episode.config.model) == ("solved", "m-1")  # it takes a model
    result = lhtb_run(str(task_dir), "--agent", "nop", "--model", "m-1", "--out", str(out / "n"))
    assert result.exit_code == 0, result.output
    assert records(out / "n")[0].config.model is None  # nop uses none
    unknown = lhtb_run(str(task_dir), "--agent", "nop", "--ak", "answer=42")
    assert unknown.exit_code == 1
    assert "class NopAgent takes no argument(s) answer" in unknown.output


def test_tier_selects_the_tasks_that_run(
    task_dir: Path, tmp_path: Path, local_backend: object
) -> None:
    for tier in ("long", "short"):
        tiered = task_dir.parent / f"answer-{tier}"
        shutil.copytree(task_dir, tiered)
        with (tiered / "task.toml").open("a") as toml:
            toml.write(f'[metadata]\ntier = "{tier}"\n')
    out = tmp_path / "run"
    args = ["--agent", "cli_test_agents:Answer", "--ak", "answer=42", "--out", str(out)]
    result = lhtb_run(str(task_dir.parent), "--tier", "long", *args)
    assert result.exit_code == 0, result.output
    [episode] = records(out)
    assert (episode.config.task_name, episode.config.tier) == ("answer-long", "long")
    assert "long tier" in result.output  # the leaderboard splits by tier
    none = lhtb_run(str(task_dir), "--tier", "long", *args)
    assert none.exit_code == 1
    assert "no task of tier long here (found: 1 untiered)" in none.output


def test_an_agent_missing_an_argument_is_said_at_once(task_dir: Path, tmp_path: Path) -> None:
    result = lhtb_run(str(task_dir), "--agent", "cli_test_agents:Answer", "--out", str(tmp_path))
    assert result.exit_code == 1
    assert "class Answer needs argument(s) answer" in result.output
    assert "--ak answer=VALUE" in result.output or "--ak x=VALUE" in result.output
    assert "Traceback" not in result.output


def test_failed_episodes_are_explained_under_the_results_table(
    task_dir: Path, tmp_path: Path, local_backend: object
) -> None:
    out = tmp_path / "run"
    result = lhtb_run(str(task_dir), "--agent", "cli_test_agents:broken", "--out", str(out))
    assert result.exit_code == 0, result.output  # the agent's failure, not the run's
    table, _, below = result.output.partition("failed episodes:")
    assert "agent_error" in table
    assert "agent_error (answer / cli_test_agents:broken #1)" in below
    assert "no API key in this sandbox" in below
    [episode] = records(out)
    assert episode.error_detail is not None
    assert "RuntimeError" in episode.error_detail


def test_max_passes_caps_the_verifier_passes(
    task_dir: Path, tmp_path: Path, local_backend: object
) -> None:
    out = tmp_path / "run"
    result = lhtb_run(str(task_dir), "--agent", "nop", "--max-passes", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    [episode] = records(out)
    assert (len(episode.passes), episode.config.max_passes) == (1, 1)


def test_a_mistyped_task_path_gets_a_suggestion(task_dir: Path) -> None:
    result = lhtb_run(str(task_dir.parent / "answr"))
    assert result.exit_code == 1
    assert f"Did you mean {task_dir}?" in result.output


def test_cleanup_says_whose_resources() -> None:
    bare = CliRunner().invoke(main, ["cleanup"])
    assert bare.exit_code == 2
    assert "--run-id ID, --run-dir DIR, or --all" in bare.output
    both = CliRunner().invoke(main, ["cleanup", "--all", "--run-id", "x"])
    assert both.exit_code == 2


def test_help_lists_choices_and_every_command() -> None:
    run_help = CliRunner().invoke(main, ["run", "--help"]).output
    assert "[auto|docker|local]" in run_help
    assert "[binary|diagnostic]" in run_help
    top = CliRunner().invoke(main, ["--help"]).output
    context = click.Context(main)
    for name, (_, summary) in COMMANDS.items():
        command = main.get_command(context, name)
        assert command is not None
        assert command.get_short_help_str(limit=500) == summary, name
        assert name in top


def test_top_level_help_imports_no_subcommand() -> None:
    probe = (
        "import json, sys\nfrom lhtb.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, check=True, capture_output=True, text=True
    )
    modules = set(json.loads(out.stdout.splitlines()[-1]))
    assert "validate" in out.stdout  # the help was printed
    heavy = {
        "lhtb.bench._benchmark",
        "lhtb.episode._runner",
        "rich",
        "structlog",
        "openai",
        "docker",
    }
    assert modules & heavy == set()


def test_agent_argument_values() -> None:
    assert parse_agent_args(("t=0.2", "name=x", "flag=true", "ids=[1, 2]", "e=")) == {
        "t": 0.2, "name": "x", "flag": True, "ids": [1, 2], "e": "",
    }  # fmt: skip
    with pytest.raises(click.BadParameter, match="KEY=VALUE"):
        parse_agent_args(("novalue",))


def test_the_model_goes_only_to_agents_that_take_one() -> None:
    assert BenchmarkAgent.from_spec("oracle", model="m").model is None
    assert BenchmarkAgent.from_spec("openai:gpt-x", model="m").model == "gpt-x"
    agent = BenchmarkAgent.from_spec("lhtb.agents:OpenAIAgent", model="m")
    assert (agent.model, agent.kwargs) == ("m", {"model": "m"})
