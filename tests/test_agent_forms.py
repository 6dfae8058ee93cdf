"""Every form of agent, in both continue modes, on the local backend; what each misuse says."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest

import lhtb
from lhtb.errors import AgentLoadError
from lhtb.sandbox.local import LocalBackend

pytestmark = pytest.mark.anyio

MODES = ("same_conversation", "restart")


@pytest.fixture(scope="module")
def two_turn_task(tmp_path_factory: pytest.TempPathFactory) -> lhtb.Task:
    """Solved only when /app/answer.txt says 42; the agents below get there on turn 2."""
    root = tmp_path_factory.mktemp("forms") / "two-turns"
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
            schema_version = "1.1"
            [agent]
            timeout_sec = 120
            continue_until_timeout = true
            [verifier]
            timeout_sec = 60
            max_passes = 3
            """
        )
    )
    return lhtb.load_task(root)


async def answer(turn: lhtb.Turn) -> None:
    """Wrong on the first turn, right on the second."""
    value = "41" if turn.number == 1 else "42"
    result = await turn.sandbox.exec(["sh", "-c", f"echo {value} > /app/answer.txt"])
    assert result.exit_code == 0, result.stderr


class Answerer:
    """Records every instance made and which instance ran which turn."""

    made: ClassVar[list[Answerer]] = []
    turns: ClassVar[list[tuple[int, int]]] = []
    model = "answer-model-1"

    def __init__(self, task: lhtb.Task | None = None) -> None:
        self.task = task
        Answerer.made.append(self)

    async def run(self, turn: lhtb.Turn) -> None:
        Answerer.turns.append((turn.number, id(self)))
        await answer(turn)


@pytest.fixture(autouse=True)
def fresh_records() -> None:
    Answerer.made.clear()
    Answerer.turns.clear()


def forms() -> dict[str, Callable[[], Any]]:
    """Each accepted form, made fresh for a test (an instance is made at call time)."""
    return {
        "instance": Answerer,  # called here: the instance
        "class": lambda: Answerer,
        "factory": lambda: lambda: Answerer(),  # noqa: PLW0108 - the factory form itself
        "task_factory": lambda: lambda task: Answerer(task),  # noqa: PLW0108
        "turn_function": lambda: answer,
    }


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", sorted(forms()))
async def test_each_form_runs_in_each_mode(
    form: str, mode: str, two_turn_task: lhtb.Task, local_backend: LocalBackend, tmp_path: Path
) -> None:
    agent = forms()[form]()
    if form == "instance" and mode == "restart":
        with pytest.raises(AgentLoadError, match=r"restart.*Answerer instance") as caught:
            await lhtb.run_episode(two_turn_task, agent, continue_mode=mode, backend=local_backend)
        assert "pass its class or a factory" in str(caught.value)
        return
    episode = await lhtb.run_episode(
        two_turn_task, agent, continue_mode=mode, backend=local_backend, output_dir=tmp_path
    )
    assert episode.outcome is lhtb.Outcome.SOLVED, (episode.error, episode.passes)
    assert [t.number for t in episode.turns] == [1, 2]
    assert episode.config.continue_mode == mode
    if form == "turn_function":
        assert episode.config.agent == "answer"
        assert Answerer.made == []
        return
    assert episode.config.agent == "Answerer"
    assert episode.config.model == "answer-model-1"  # the agent's `model` attribute
    runners = [who for _, who in Answerer.turns]
    if mode == "restart":
        assert len(Answerer.made) == 2
        assert runners == [id(Answerer.made[0]), id(Answerer.made[1])]
    else:
        assert len(Answerer.made) == 1
        assert runners == [id(Answerer.made[0])] * 2
    if form == "task_factory":
        assert all(made.task is two_turn_task for made in Answerer.made)


@pytest.mark.parametrize("mode", MODES)
async def test_run_benchmark_takes_every_form(
    mode: str, two_turn_task: lhtb.Task, local_backend: LocalBackend, tmp_path: Path
) -> None:
    config = attrs.evolve(two_turn_task.agent, continue_mode=lhtb.ContinueMode(mode))
    task = attrs.evolve(two_turn_task, agent=config)
    agents = {name: make() for name, make in forms().items()}
    if mode == "restart":
        del agents["instance"]
    result = await lhtb.run_benchmark(
        [task], agents, output_dir=tmp_path, backend=local_backend, stagger_sec=0
    )
    outcomes = {e.config.agent: (str(e.outcome), len(e.turns)) for e in result.episodes}
    assert outcomes == dict.fromkeys(agents, ("solved", 2)), [e.error for e in result.episodes]


def tiny_task(mode: str = "same_conversation") -> lhtb.Task:
    return lhtb.Task(
        name="t/forms",
        instruction="x",
        agent=lhtb.AgentConfig(timeout_sec=30, continue_mode=lhtb.ContinueMode(mode)),
    )


class NeedsKey:
    def __init__(self, api_key: str) -> None:
        self.api_key = api_key

    async def run(self, turn: lhtb.Turn) -> None:
        del turn


async def test_a_class_that_needs_arguments_says_which_and_how(tmp_path: Path) -> None:
    with pytest.raises(AgentLoadError, match=r"class .*NeedsKey needs argument\(s\) api_key"):
        await lhtb.run_episode(tiny_task(), NeedsKey, output_dir=tmp_path / "one")
    with pytest.raises(AgentLoadError, match="--ak"):
        await lhtb.run_benchmark([tiny_task()], NeedsKey, output_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


async def test_misused_forms_name_what_was_passed_and_what_works(tmp_path: Path) -> None:
    def blocking(turn: lhtb.Turn) -> None:
        del turn

    class NoRun:
        pass

    cases: list[tuple[object, str]] = [
        (blocking, "function .*blocking takes a turn but is not async"),
        (NoRun, "class .*NoRun has no `async def run"),
        (42, "int instance .* is not an agent.*agent instance, an agent class"),
    ]
    for value, message in cases:
        with pytest.raises(AgentLoadError, match=message):
            await lhtb.run_episode(tiny_task(), value, output_dir=tmp_path)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
async def test_a_factory_that_fails_is_an_agent_error_not_retried(
    mode: str, tmp_path: Path, local_backend: LocalBackend
) -> None:
    def broken() -> lhtb.Agent:
        raise RuntimeError("no credentials in this test")

    def not_an_agent() -> int:
        return 7

    result = await lhtb.run_benchmark(
        [tiny_task(mode)],
        {"broken": broken, "seven": not_an_agent},
        output_dir=tmp_path,
        backend=local_backend,
        stagger_sec=0,
    )
    assert result.tries == 2  # one each: an agent that cannot be made is not retried
    errors = {e.config.agent: (e.outcome, e.error or "") for e in result.episodes}
    assert errors["broken"][0] is lhtb.Outcome.AGENT_ERROR
    assert "function" in errors["broken"][1]
    assert "no credentials in this test" in errors["broken"][1]
    assert errors["seven"][0] is lhtb.Outcome.AGENT_ERROR
    assert "returned int instance, which is not an agent" in errors["seven"][1]
