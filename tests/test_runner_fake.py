"""The episode state machine on the in-memory FakeBackend and a virtual clock.

No Docker, no root, no wall clock: every budget, deadline and pass spacing is
exact on the loop's virtual clock, so these results cannot depend on how busy
the machine is. Real-backend behaviour (freezing processes, isolation, the
red-team suite) is tested in tests/test_runner.py and tests/security/.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

import lhtb
from lhtb.agents import NopAgent
from lhtb.episode import TurnEnd
from lhtb.episode._feedback import BINARY_SENTENCE
from lhtb.episode._runner import AGENT_CANCEL_GRACE_SEC
from lhtb.errors import ExecError, LhtbError, SandboxError, SandboxUnavailableError
from lhtb.testing import FakeBackend, ScriptedPass, fake_task, virtual_clock_backend

pytestmark = pytest.mark.anyio

ANSWER = "/app/answer.txt"
Events = list[tuple[str, dict[str, Any]]]


@pytest.fixture
def anyio_backend() -> tuple[str, dict[str, object]]:
    return virtual_clock_backend()


def graded(files: Mapping[str, bytes]) -> float:
    """The fake tests: 1.0 when the answer is 42."""
    return 1.0 if files.get(ANSWER, b"").strip() == b"42" else 0.0


async def run(
    task: lhtb.Task,
    agent: lhtb.Agent | Callable[[], lhtb.Agent],
    backend: FakeBackend,
    tmp_path: Path,
    **settings: Any,
) -> tuple[lhtb.Episode, Events]:
    events: Events = []
    episode = await lhtb.run_episode(
        task,
        agent,
        backend=backend,
        output_dir=tmp_path / "episode",
        on_event=lambda name, fields: events.append((name, fields)),
        **settings,
    )
    return episode, events


def names(events: Events) -> list[str]:
    return [name for name, _ in events]


def pass_starts(backend: FakeBackend) -> list[float]:
    """When each verifier pass's tests started, on the virtual clock."""
    return [call.time for call in backend.calls if call.operation == "tests"]


class Answers:
    """Writes the next answer of its list each turn (the last one repeats) and stops."""

    def __init__(self, *answers: str, work_sec: float = 0.0) -> None:
        self.answers = answers
        self.work_sec = work_sec
        self.feedback: list[str | None] = []

    async def run(self, turn: lhtb.Turn) -> None:
        self.feedback.append(turn.feedback)
        await turn.sandbox.write_file(ANSWER, self.answers[min(turn.number, len(self.answers)) - 1])
        await anyio.sleep(self.work_sec)


# -- continue modes ------------------------------------------------------------------------------


async def test_rejected_then_resumed_in_the_same_conversation(tmp_path: Path) -> None:
    backend = FakeBackend([graded])
    agent = Answers("41", "42")
    episode, events = await run(fake_task(tmp_path), agent, backend, tmp_path)
    assert (str(episode.outcome), episode.reward) == ("solved", 1.0)
    assert [(p.reward, p.final) for p in episode.passes] == [(0.0, False), (1.0, True)]
    assert agent.feedback[0] is None
    rejection = agent.feedback[1]
    assert rejection is not None
    assert rejection.startswith(BINARY_SENTENCE.split("{", 1)[0])
    assert "pass 1" in rejection
    assert names(events) == [
        "episode_started",
        "provision_started",
        "provision_finished",
        "agent_turn_started",
        "agent_turn_finished",
        "verifier_pass_started",
        "verifier_pass_finished",
        "agent_turn_started",
        "agent_turn_finished",
        "verifier_pass_started",
        "verifier_pass_finished",
        "episode_finished",
    ]
    sandbox = backend.agent_sandbox
    # Each pass freezes first, and thaws after (both ran as interim passes).
    operations = [op for op in backend.operations(sandbox.id) if op in {"freeze", "thaw", "tests"}]
    assert operations == ["freeze", "tests", "thaw"] * 2
    assert sandbox.destroyed
    assert not [path for path in sandbox.files if path.startswith(("/tests", "/logs"))]


async def test_restart_mode_gets_a_fresh_agent_per_turn(tmp_path: Path) -> None:
    made: list[Answers] = []

    def factory() -> Answers:
        made.append(Answers("41", "41", "42"))
        return made[-1]

    task = fake_task(tmp_path, continue_mode="restart")
    episode, _ = await run(task, factory, FakeBackend([graded]), tmp_path)
    assert str(episode.config.continue_mode) == "restart"
    assert (str(episode.outcome), len(episode.passes)) == ("solved", 3)
    assert [len(agent.feedback) for agent in made] == [1, 1, 1]
    assert made[0].feedback == [None]
    assert made[2].feedback[0] is not None


async def test_restart_mode_needs_a_factory(tmp_path: Path) -> None:
    task = fake_task(tmp_path, continue_mode="restart")
    with pytest.raises(LhtbError, match="factory"):
        await run(task, Answers("42"), FakeBackend(), tmp_path)


async def test_without_continue_one_pass_decides(tmp_path: Path) -> None:
    task = fake_task(tmp_path, continue_until_timeout=False)
    episode, _ = await run(task, Answers("41"), FakeBackend([graded]), tmp_path)
    assert (str(episode.outcome), episode.reward, len(episode.turns)) == ("unsolved", 0.0, 1)
    assert episode.passes[0].final


# -- passes: max_passes, spacing, verifier time ---------------------------------------------------


async def test_max_passes_caps_the_passes(tmp_path: Path) -> None:
    backend = FakeBackend([0.2])
    episode, _ = await run(fake_task(tmp_path, max_passes=3), NopAgent(), backend, tmp_path)
    assert (str(episode.outcome), episode.reward) == ("unsolved", 0.2)
    assert [p.final for p in episode.passes] == [False, False, True]
    assert backend.passes_run == len(episode.turns) == 3


async def test_passes_are_spaced_by_min_pass_interval(tmp_path: Path) -> None:
    """An agent stopping at once waits out the interval on its own budget; at the
    deadline the last pass is the final one."""
    backend = FakeBackend([ScriptedPass(reward=0.0, seconds=5)])
    task = fake_task(tmp_path, budget=1000)
    episode, events = await run(task, NopAgent(), backend, tmp_path, min_pass_interval_sec=100)
    starts = pass_starts(backend)
    gaps = [later - (earlier + 5) for earlier, later in itertools.pairwise(starts)]
    assert gaps[:-1] == [100.0] * (len(starts) - 2)
    assert gaps[-1] == 50.0  # cut short by the deadline: 10 passes took 10 * 5 + 9 * 100
    assert starts[-1] - starts[0] == 1000.0
    assert len(episode.passes) == 11
    assert [p.final for p in episode.passes] == [False] * 10 + [True]
    assert names(events).count("verifier_pass_spaced") == 10


@pytest.mark.parametrize(("counts", "passes"), [(True, 2), (False, 4)])
async def test_verifier_time_counts_against_the_budget_or_not(
    tmp_path: Path, counts: bool, passes: int
) -> None:
    """Budget 100, each turn works 30, each pass takes 50. Counted, the second turn is
    cut at 100 (30 + 50 + 20); not counted, the agent gets 30 + 30 + 30 + 10."""
    backend = FakeBackend([ScriptedPass(reward=0.0, seconds=50)])
    task = fake_task(tmp_path, budget=100)
    episode, _ = await run(
        task, Answers("41", work_sec=30), backend, tmp_path, verifier_time_counts=counts
    )
    assert episode.config.verifier_time_counts is counts
    assert len(episode.passes) == passes
    assert [t.end for t in episode.turns] == [TurnEnd.RETURNED] * (passes - 1) + [TurnEnd.DEADLINE]
    assert episode.passes[-1].final
    # Each pass is timed on the budget clock, which stands still during uncounted passes.
    expected = [30.0, 100.0] if counts else [30.0, 60.0, 90.0, 100.0]
    assert [p.elapsed_sec for p in episode.passes] == expected


# -- the deadline ---------------------------------------------------------------------------------


async def test_budget_expiring_mid_turn_cuts_the_agent_off_and_verifies(tmp_path: Path) -> None:
    class Worker:
        async def run(self, turn: lhtb.Turn) -> None:
            await turn.sandbox.write_file(ANSWER, "42")
            await anyio.sleep(3600)

    started = anyio.current_time()
    backend = FakeBackend([graded])
    episode, _ = await run(fake_task(tmp_path, budget=60), Worker(), backend, tmp_path)
    assert (str(episode.outcome), episode.reward, len(episode.passes)) == ("solved", 1.0, 1)
    assert episode.turns[0].end is TurnEnd.DEADLINE
    assert episode.passes[0].final
    assert pass_starts(backend) == [started + 60]


async def test_budget_expiring_mid_pass_makes_it_the_final_pass(tmp_path: Path) -> None:
    backend = FakeBackend([ScriptedPass(reward=0.5, seconds=200)])
    episode, _ = await run(
        fake_task(tmp_path, budget=100), Answers("41", work_sec=10), backend, tmp_path
    )
    assert (str(episode.outcome), episode.reward) == ("unsolved", 0.5)
    assert len(episode.turns) == len(episode.passes) == 1
    assert episode.passes[0].final


async def test_tests_past_the_verifier_timeout_are_a_verifier_timeout(tmp_path: Path) -> None:
    backend = FakeBackend([ScriptedPass(reward=1.0, seconds=61)])
    task = fake_task(tmp_path, verifier_timeout_sec=60, continue_until_timeout=False)
    episode, _ = await run(task, NopAgent(), backend, tmp_path)
    assert (str(episode.outcome), episode.reward) == ("verifier_timeout", None)
    assert "timeout_sec=60" in (episode.passes[0].error or "")


class IgnoresCancellation:
    """Writes the right answer, then swallows cancellation and tries to spoil the answer
    through its sandbox handle after the deadline (it gives up eventually)."""

    def __init__(self) -> None:
        self.late_writes = 0
        self.refused = 0
        self.cancelled = 0
        self.done = anyio.Event()

    async def run(self, turn: lhtb.Turn) -> None:
        await turn.sandbox.write_file(ANSWER, "42")
        give_up = turn.deadline + AGENT_CANCEL_GRACE_SEC + 100
        try:
            while anyio.current_time() < give_up:
                try:
                    await anyio.sleep(1)
                    if anyio.current_time() > turn.deadline:
                        await turn.sandbox.write_file(ANSWER, "0")
                        self.late_writes += 1
                except anyio.get_cancelled_exc_class():
                    self.cancelled += 1  # the attack: ignore the harness
                except LhtbError:
                    self.refused += 1
        finally:
            self.done.set()


async def test_an_agent_ignoring_cancellation_is_abandoned_after_the_grace(
    tmp_path: Path,
) -> None:
    agent = IgnoresCancellation()
    started = anyio.current_time()
    episode, events = await run(
        fake_task(tmp_path, budget=60), agent, FakeBackend([graded]), tmp_path
    )
    ended = anyio.current_time()
    assert agent.cancelled >= 1  # it was cancelled, and ignored it
    assert agent.refused >= 1  # it kept trying after its turn
    assert agent.late_writes == 0
    assert ended - started == 60 + AGENT_CANCEL_GRACE_SEC  # passes take no time here
    assert (str(episode.outcome), episode.reward) == ("solved", 1.0)
    assert episode.turns[0].end is TurnEnd.DEADLINE
    assert "abandoned" in (episode.turns[0].error or "")
    assert "agent_abandoned" in names(events)
    await agent.done.wait()


# -- failures -------------------------------------------------------------------------------------


async def test_an_agent_exception_is_agent_error_after_a_final_verification(
    tmp_path: Path,
) -> None:
    class Crasher:
        async def run(self, turn: lhtb.Turn) -> None:
            await turn.sandbox.write_file(ANSWER, "42")
            raise RuntimeError("model returned garbage")

    episode, _ = await run(fake_task(tmp_path), Crasher(), FakeBackend([graded]), tmp_path)
    assert (str(episode.outcome), episode.reward, len(episode.passes)) == ("agent_error", 1.0, 1)
    assert episode.error == "RuntimeError: model returned garbage"
    assert episode.turns[0].end is TurnEnd.ERROR


async def test_a_lost_sandbox_is_an_agent_error_not_an_infra_error(tmp_path: Path) -> None:
    backend = FakeBackend([graded])

    class KillsInit:
        async def run(self, turn: lhtb.Turn) -> None:
            await turn.sandbox.write_file(ANSWER, "42")
            backend.agent_sandbox.lose()  # what `kill -9 1` does to a real sandbox

    episode, events = await run(fake_task(tmp_path), KillsInit(), backend, tmp_path)
    assert str(episode.outcome) == "agent_error"
    assert episode.error is not None
    assert "stopped during turn 1" in episode.error
    assert "agent_sandbox_lost" in names(events)
    assert episode.passes == ()


@pytest.mark.parametrize(
    ("operation", "error", "event"),
    [
        ("prepare", LhtbError("base image missing"), "setup_error"),
        ("start", SandboxError("no capacity"), "infra_error"),
        ("freeze", SandboxError("cgroup write failed"), "infra_error"),
    ],
)
async def test_infrastructure_failures_are_infra_errors(
    tmp_path: Path, operation: str, error: Exception, event: str
) -> None:
    backend = FakeBackend([graded])
    backend.fail(operation, error)
    episode, events = await run(fake_task(tmp_path), Answers("42"), backend, tmp_path)
    assert str(episode.outcome) == "infra_error"
    assert episode.error == str(error)
    assert event in names(events)
    assert names(events)[-1] == "episode_finished"
    assert all(sandbox.destroyed for sandbox in backend.sandboxes)


async def test_tests_that_cannot_start_among_the_agents_processes_are_its_spoiled_pass(
    tmp_path: Path,
) -> None:
    """``shared``: the agent holds every process slot, so no command of the pass starts
    (the probe, the reset, the removal); a verifier error, not a retryable infra error."""
    backend = FakeBackend([graded])
    full = ExecError("command could not start: OCI runtime exec failed: read init-p")
    backend.fail("exec", full, times=3)
    task = fake_task(tmp_path, continue_until_timeout=False)
    episode, _ = await run(task, Answers("42"), backend, tmp_path)
    assert backend.operations().count("exec") == 3, "not every command of the pass was refused"
    assert backend.passes_run == 0, "the tests ran: the pass was not spoiled"
    assert str(episode.outcome) == "verifier_error"
    [spoiled] = episode.passes
    assert spoiled.error is not None
    assert "the tests could not start in the agent's sandbox" in spoiled.error
    assert "read init-p" in spoiled.error


async def test_a_failing_teardown_keeps_the_result(tmp_path: Path) -> None:
    backend = FakeBackend([graded])
    backend.fail("destroy", SandboxError("daemon went away"))
    episode, events = await run(fake_task(tmp_path), Answers("42"), backend, tmp_path)
    assert (str(episode.outcome), episode.reward) == ("solved", 1.0)
    assert "teardown_failed" in names(events)


async def test_a_missing_reward_is_a_verifier_error_not_zero(tmp_path: Path) -> None:
    backend = FakeBackend([ScriptedPass(stdout="no reward\n")])
    task = fake_task(tmp_path, continue_until_timeout=False)
    episode, _ = await run(task, NopAgent(), backend, tmp_path)
    assert (str(episode.outcome), episode.reward) == ("verifier_error", None)
    assert "no reward file" in (episode.passes[0].error or "")
    stdout = tmp_path / "episode" / "verifier" / "pass-001" / "test-stdout.txt"
    assert stdout.read_text() == "no reward\n"


async def test_cancelling_the_run_records_a_cancelled_episode(tmp_path: Path) -> None:
    backend = FakeBackend([graded])
    turn_started = anyio.Event()

    class Waits:
        async def run(self, turn: lhtb.Turn) -> None:
            turn_started.set()
            await anyio.sleep(3600)

    async def cancel_when_working(scope: anyio.CancelScope) -> None:
        await turn_started.wait()
        scope.cancel()

    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:
            group.start_soon(cancel_when_working, scope)
            await run(fake_task(tmp_path), Waits(), backend, tmp_path)
    assert scope.cancel_called
    assert turn_started.is_set()
    saved = lhtb.Episode.load(tmp_path / "episode" / "episode.json")
    assert str(saved.outcome) == "cancelled"
    lines = (tmp_path / "episode" / "events.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines][-2:] == [
        "episode_cancelled",
        "episode_finished",
    ]
    assert backend.agent_sandbox.destroyed
    assert backend.passes_run == 0


def test_episodes_need_asyncio(tmp_path: Path) -> None:
    """Outside an asyncio loop (e.g. on trio) run_episode refuses with a typed error."""
    coroutine = lhtb.run_episode(fake_task(tmp_path), NopAgent(), backend=FakeBackend())
    with pytest.raises(LhtbError, match="asyncio"):
        coroutine.send(None)


# -- records and isolation ------------------------------------------------------------------------


async def test_the_record_round_trips_and_the_event_log_matches(tmp_path: Path) -> None:
    scorecard = {
        "subtasks": [
            {"name": "build", "score": 1.0, "visibility": "public"},
            {"name": "stress", "score": 0.5, "weight": 3, "visibility": "hidden"},
        ]
    }
    backend = FakeBackend([ScriptedPass(scorecard=scorecard)])
    task = fake_task(tmp_path, max_passes=2)
    episode, events = await run(task, Answers("1", "2"), backend, tmp_path)
    assert episode.reward == pytest.approx(0.625)
    assert episode.scorecard is not None
    assert [s.name for s in episode.scorecard.subtasks] == ["build", "stress"]
    assert lhtb.Episode.load(tmp_path / "episode" / "episode.json") == episode
    lines = (tmp_path / "episode" / "events.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == names(events)
    assert episode.config.backend == "fake"


async def test_every_pass_gets_the_episode_seed(tmp_path: Path) -> None:
    backend = FakeBackend([0.0])
    task = fake_task(tmp_path, max_passes=3)
    episode, _ = await run(task, NopAgent(), backend, tmp_path, seed=1234)
    assert episode.config.seed == 1234
    assert [env["LHTB_SEED"] for env in backend.tests_env] == ["1234"] * 3
    drawn = FakeBackend([0.0])
    other, _ = await run(task, NopAgent(), drawn, tmp_path / "drawn")
    assert other.config.seed is not None  # drawn once for the episode, and recorded
    assert [env["LHTB_SEED"] for env in drawn.tests_env] == [str(other.config.seed)] * 3


@pytest.mark.parametrize("isolation", ["separate", "snapshot", "shared"])
async def test_each_isolation_mode_grades_what_it_should(tmp_path: Path, isolation: str) -> None:
    seen: list[set[str]] = []

    def grade(files: Mapping[str, bytes]) -> float:
        seen.append({path for path in files if not path.startswith(("/tests", "/logs"))})
        return graded(files)

    class Writes:
        async def run(self, turn: lhtb.Turn) -> None:
            await turn.sandbox.write_file(ANSWER, "42")
            await turn.sandbox.write_file("/tmp/notes.txt", "scratch")

    backend = FakeBackend([grade], files={"/etc/os-release": "fake"})
    artifacts = ["/app"] * (isolation == "separate")
    task = fake_task(tmp_path, isolation=isolation, artifacts=artifacts, max_passes=2)
    episode, _ = await run(task, Writes(), backend, tmp_path)
    assert (str(episode.outcome), episode.reward) == ("solved", 1.0)
    roles = [sandbox.spec.role for sandbox in backend.sandboxes]
    expected = {
        "separate": ({"/etc/os-release", ANSWER}, ["agent", "verifier"]),
        "snapshot": ({"/etc/os-release", ANSWER, "/tmp/notes.txt"}, ["agent", "verifier"]),
        "shared": ({"/etc/os-release", ANSWER, "/tmp/notes.txt"}, ["agent"]),
    }[isolation]
    assert (seen, roles) == ([expected[0]], expected[1])
    assert all(sandbox.destroyed for sandbox in backend.sandboxes)


# -- the fake backend and the clock themselves ---------------------------------------------------


async def test_the_virtual_clock_jumps_to_the_next_timer() -> None:
    before = anyio.current_time()
    await anyio.sleep(3600)
    assert anyio.current_time() - before == 3600
    with anyio.move_on_after(30) as scope:
        await anyio.sleep(90)
    assert scope.cancelled_caught
    assert anyio.current_time() - before == 3630


async def test_the_fake_sandbox_keeps_files_and_refuses_when_gone(tmp_path: Path) -> None:
    backend = FakeBackend(files={"/app/seed.txt": "seed"})
    task = fake_task(tmp_path)
    sandbox = await backend.start(
        lhtb.sandbox.base.SandboxSpec(await backend.prepare(task), task, "r")
    )
    await sandbox.write_file("/app/out/a.txt", b"a")
    archive = await sandbox.export(["/app"], exclude=["app/seed.txt"])
    copy = await backend.start(lhtb.sandbox.base.SandboxSpec("fake:fake-task", task, "r"))
    await copy.import_(archive, dest="/restored")
    assert await copy.read_file("/restored/app/out/a.txt") == b"a"
    assert "/restored/app/seed.txt" not in copy.files
    with pytest.raises(FileNotFoundError):
        await sandbox.export(["/nowhere"])
    is_dir = ["sh", "-c", '[ -d "$1" ]', "sh"]
    assert (await sandbox.exec([*is_dir, "/app/out"])).ok
    assert not (await sandbox.exec([*is_dir, "/app/out/a.txt"])).ok
    assert (await sandbox.exec("test -f /app/out/a.txt")).ok
    with pytest.raises(LhtbError, match="unknown operation"):
        backend.fail("reboot", SandboxError("x"))
    sandbox.lose()
    with pytest.raises(SandboxUnavailableError):
        await sandbox.agent_view().exec("true")
    assert await backend.cleanup("r") == 2  # a lost sandbox is still removed
    assert await backend.cleanup("r") == 0
