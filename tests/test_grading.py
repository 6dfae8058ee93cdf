"""Grading outside an episode on a small inline task, on Docker and local.

``lhtb.open_sandbox`` gives a task's sandbox and removes it after the block
(normal exit, an exception, a cancellation); ``lhtb.Verifier`` grades a
sandbox's state (``grade``) or artifacts given as files (``grade_files``) under
the episode's rules, with the episode's seed, giving an episode's reward. Every
task in ``tasks/`` that the local backend can run (all but compose
environments) runs on it: the nop agent's episode fails it, and the oracle's
final state grades 1.0 from its artifacts.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

import lhtb
from lhtb.agents import NopAgent, OracleAgent
from lhtb.errors import GradeInputError, SetupError, UnsupportedFeatureError
from lhtb.sandbox._environment import find_compose_file
from lhtb.sandbox.base import ManagedSandbox, SandboxBackend
from lhtb.sandbox.host import extract_to_host
from lhtb.sandbox.local import LocalSandbox
from lhtb.sandbox.local._dockerfile import parse_dockerfile
from turns import first_turn

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parent.parent
TASK_DIRS = sorted(p for p in (REPO / "tasks").iterdir() if (p / "task.toml").is_file())


def _local_can_run(task_dir: Path) -> bool:
    """No compose environment and a Dockerfile within the local backend's subset."""
    environment = task_dir / "environment"
    if find_compose_file(environment) is not None:
        return False
    try:
        parse_dockerfile(environment / "Dockerfile")
    except UnsupportedFeatureError:
        return False
    return True


# The rest need Docker (test_the_local_backend_refuses_the_other_tasks); CI's
# `lhtb check tasks/` gates every task on Docker.
LOCAL_TASK_DIRS = [p for p in TASK_DIRS if _local_can_run(p)]
DOCKER_ONLY_DIRS = [p for p in TASK_DIRS if p not in LOCAL_TASK_DIRS]
SEED = 20261130
DOCKERFILE = "FROM debian:bookworm-slim\nRUN mkdir -p /app && echo draft > /app/answer.txt\n"
# Full marks for /app/answer.txt == 42, a quarter otherwise; the seed lands in the message.
TEST_SH = """#!/bin/sh
score=0.25
[ "$(cat /app/answer.txt 2>/dev/null)" = 42 ] && score=1
cat > /logs/verifier/scorecard.json <<EOF
{"subtasks": [{"name": "answer", "score": $score, "visibility": "public",
  "message": "seed ${LHTB_SEED:-none}"}]}
EOF
"""
Exists = Callable[[ManagedSandbox], Awaitable[bool]]


def make_task(root: Path, isolation: lhtb.IsolationMode) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (root / "tests").mkdir()
    (root / "tests" / "test.sh").write_text(TEST_SH)
    return lhtb.Task(
        name="test-grading",
        instruction="write 42 to /app/answer.txt",
        environment=lhtb.EnvironmentConfig(allow_internet=False, workdir="/app"),
        verifier=lhtb.VerifierConfig(isolation=isolation, timeout_sec=120),
        artifacts=(lhtb.Artifact("/app"),),
        environment_dir=root / "environment",
        tests_dir=root / "tests",
    )


@pytest.fixture
def backend(sandbox_backend: SandboxBackend) -> SandboxBackend:
    return sandbox_backend


@pytest.fixture
def exists(backend: SandboxBackend) -> Exists:
    """Whether the backend still holds a sandbox (asked of Docker or the host, not the handle)."""

    async def check(sandbox: ManagedSandbox) -> bool:
        if isinstance(sandbox, LocalSandbox):
            return sandbox.directory.exists()
        import docker.errors

        client = backend.client  # type: ignore[attr-defined]
        try:
            await anyio.to_thread.run_sync(client.containers.get, sandbox.id)
        except docker.errors.NotFound:
            return False
        return True

    return check


@pytest.fixture
def separate(tmp_path: Path) -> lhtb.Task:
    return make_task(tmp_path / "task", lhtb.IsolationMode.SEPARATE)


# -- open_sandbox ---------------------------------------------------------------------------------


async def test_open_sandbox_is_removed_after_the_block(
    separate: lhtb.Task, backend: SandboxBackend, exists: Exists
) -> None:
    async with lhtb.open_sandbox(separate, backend=backend) as sandbox:
        assert await exists(sandbox)
        assert (await sandbox.read_file("/app/answer.txt")).strip() == b"draft"
    assert not await exists(sandbox)


async def test_open_sandbox_is_removed_when_the_block_raises(
    separate: lhtb.Task, backend: SandboxBackend, exists: Exists
) -> None:
    opened: list[ManagedSandbox] = []

    async def block() -> None:
        async with lhtb.open_sandbox(separate, backend=backend) as sandbox:
            opened.append(sandbox)
            assert await exists(sandbox)
            raise RuntimeError("in the block")

    with pytest.raises(RuntimeError, match="in the block"):
        await block()
    assert opened
    assert not await exists(opened[0])


async def test_open_sandbox_is_removed_when_the_block_is_cancelled(
    separate: lhtb.Task, backend: SandboxBackend, exists: Exists
) -> None:
    opened: list[ManagedSandbox] = []
    with anyio.CancelScope() as scope:
        async with lhtb.open_sandbox(separate, backend=backend) as sandbox:
            opened.append(sandbox)
            assert await exists(sandbox)
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert opened
    assert not await exists(opened[0])


# -- Verifier.grade -------------------------------------------------------------------------------


@pytest.mark.parametrize("isolation", list(lhtb.IsolationMode))
async def test_grade_scores_the_current_state_and_thaws(
    tmp_path: Path, backend: SandboxBackend, isolation: lhtb.IsolationMode
) -> None:
    task = make_task(tmp_path / "task", isolation)
    verifier = lhtb.Verifier(task, backend, seed=7, output_dir=tmp_path / "grades")
    async with lhtb.open_sandbox(task, backend=backend) as sandbox:
        before = await verifier.grade(sandbox)
        await sandbox.agent_view().write_file("/app/answer.txt", "42\n")
        after = await verifier.grade(sandbox)
        assert (await sandbox.exec("cat /app/answer.txt")).stdout_text == "42\n"  # thawed
    assert (before.reward, before.outcome) == (0.25, lhtb.PassOutcome.FAILED)
    assert (after.reward, after.outcome) == (1.0, lhtb.PassOutcome.PASSED)
    assert (before.number, after.number) == (1, 2)
    assert before.seed == after.seed == 7
    assert after.scorecard is not None
    assert after.scorecard.subtasks[0].message == "seed 7"
    assert after.log_dir == "verifier/pass-002"
    assert json.loads((verifier.output_dir / after.log_dir / "scorecard.json").read_text())


async def test_a_grade_cancelled_mid_pass_thaws_the_sandbox(
    tmp_path: Path, backend: SandboxBackend
) -> None:
    """Cancelled while its tests run (shared isolation: in the frozen sandbox), a grade
    leaves the sandbox running: a background counter goes on."""
    task = make_task(tmp_path / "task", lhtb.IsolationMode.SHARED)
    assert task.tests_dir is not None
    (task.tests_dir / "test.sh").write_text("#!/bin/sh\ntouch /tmp/started\nexec sleep 600\n")
    verifier = lhtb.Verifier(task, backend, output_dir=tmp_path / "grades")
    async with lhtb.open_sandbox(task, backend=backend) as sandbox:

        async def count() -> str:
            return (await sandbox.exec("cat /tmp/count 2>/dev/null")).stdout_text

        async def cancel_once_the_tests_run(scope: anyio.CancelScope) -> None:
            with anyio.fail_after(120):  # the pass froze the sandbox before running them
                while not (await sandbox.exec(["test", "-e", "/tmp/started"])).ok:
                    await anyio.sleep(0.05)
            scope.cancel()

        counter = "i=0; while :; do i=$((i+1)); echo $i > /tmp/count; sleep 0.05; done"
        await sandbox.agent_view().exec(f"nohup sh -c '{counter}' >/dev/null 2>&1 &")
        with anyio.fail_after(60):
            while not await count():
                await anyio.sleep(0.05)
        async with anyio.create_task_group() as group:
            group.start_soon(cancel_once_the_tests_run, group.cancel_scope)
            await verifier.grade(sandbox)
        assert group.cancel_scope.cancelled_caught
        after_cancel = await count()
        with anyio.fail_after(60):  # a sandbox left frozen never counts on
            while await count() == after_cancel:
                await anyio.sleep(0.05)


async def test_grade_and_grade_files_give_the_episodes_reward(
    separate: lhtb.Task, backend: SandboxBackend, tmp_path: Path
) -> None:
    """The same state on the same seed grades as it did in the episode, either way."""
    episode = await lhtb.run_episode(
        separate,
        NopAgent(),
        backend=backend,
        seed=SEED,
        budget=120,
        continue_until_timeout=False,
        output_dir=tmp_path / "episode",
    )
    verifier = lhtb.Verifier(separate, backend, seed=SEED, output_dir=tmp_path / "grades")
    async with lhtb.open_sandbox(separate, backend=backend) as sandbox:
        graded = await verifier.grade(sandbox)
        files = await save_artifacts(separate, sandbox, tmp_path / "files")
    from_files = await verifier.grade_files(files)
    assert episode.reward == graded.reward == from_files.reward == 0.25
    assert episode.passes[-1].scorecard is not None
    assert graded.scorecard == from_files.scorecard == episode.passes[-1].scorecard
    assert {graded.seed, from_files.seed} == {SEED}


# -- Verifier.grade_files -----------------------------------------------------------------------


async def test_grade_files_takes_a_directory_or_a_mapping(
    separate: lhtb.Task, backend: SandboxBackend, tmp_path: Path
) -> None:
    verifier = lhtb.Verifier(separate, backend, output_dir=tmp_path / "grades")
    work = tmp_path / "work"
    (work / "app").mkdir(parents=True)
    (work / "app" / "answer.txt").write_text("42\n")
    (work / "elsewhere.txt").write_text("not an artifact, never copied\n")
    from_dir = await verifier.grade_files(work)
    from_mapping = await verifier.grade_files({"/app/answer.txt": b"42\n"})
    wrong = await verifier.grade_files({"app/answer.txt": "41\n"})
    assert [r.reward for r in (from_dir, from_mapping, wrong)] == [1.0, 1.0, 0.25]
    assert verifier.seed is not None
    assert {r.seed for r in (from_dir, from_mapping, wrong)} == {verifier.seed}


async def test_grade_files_confines_artifacts_like_an_episode(
    separate: lhtb.Task, backend: SandboxBackend, tmp_path: Path
) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("42\n")
    work = tmp_path / "work"
    (work / "app").mkdir(parents=True)
    (work / "app" / "answer.txt").symlink_to(secret)
    verifier = lhtb.Verifier(separate, backend, output_dir=tmp_path / "grades")
    result = await verifier.grade_files(work)
    assert result.reward == 0.0
    assert result.outcome is lhtb.PassOutcome.FAILED
    assert result.error is not None
    assert "leaves /app" in result.error
    assert result.log_dir is not None
    assert "artifacts refused" in (verifier.output_dir / result.log_dir / "refused.txt").read_text()


async def test_grade_files_refuses_what_it_cannot_grade(tmp_path: Path) -> None:
    separate = make_task(tmp_path / "separate", lhtb.IsolationMode.SEPARATE)
    shared = make_task(tmp_path / "shared", lhtb.IsolationMode.SHARED)
    grades = tmp_path / "grades"
    with pytest.raises(GradeInputError, match="not a directory"):
        await lhtb.Verifier(separate, "local", output_dir=grades).grade_files(tmp_path / "nope")
    with pytest.raises(GradeInputError, match=r"'\.\./etc/passwd' is not a file path"):
        await lhtb.Verifier(separate, "local", output_dir=grades).grade_files(
            {"../etc/passwd": b"x"}
        )
    with pytest.raises(GradeInputError, match="shared isolation") as raised:
        await lhtb.Verifier(shared, "local", output_dir=grades).grade_files({"app/a": b"x"})
    assert "open_sandbox" in str(raised.value)
    assert not grades.exists()


# -- the task suite -------------------------------------------------------------------------------


async def save_artifacts(task: lhtb.Task, sandbox: ManagedSandbox, dest: Path) -> Path:
    """The sandbox's declared artifacts as a host directory laid out like its root."""
    archive = await sandbox.export([artifact.source for artifact in task.artifacts])
    extract_to_host(archive, dest)
    return dest


async def run_oracle(task: lhtb.Task, sandbox: ManagedSandbox) -> None:
    """The oracle agent's one turn, on the agent's view of ``sandbox``."""
    turn = first_turn(task, sandbox, budget_sec=900)
    await OracleAgent(task).run(turn)


@pytest.mark.slow
@pytest.mark.parametrize("task_dir", LOCAL_TASK_DIRS, ids=[p.name for p in LOCAL_TASK_DIRS])
async def test_nop_fails_and_the_oracle_state_grades_full_on_local(
    task_dir: Path, local_backend: SandboxBackend, tmp_path: Path
) -> None:
    """Each task on the local backend (no Docker): the nop agent's episode fails it, and
    the oracle's final state, saved as the task's artifacts, grades 1.0 through
    ``grade_files`` (so the artifacts hold all the verifier reads). (On Docker, CI's
    ``lhtb check tasks/`` runs each task's oracle and nop episodes and re-grades its weak
    solutions on their seed; that ``grade`` and ``grade_files`` give an episode's reward
    is proven on the inline task, on both backends. One oracle pass per task: each is a
    full verifier run, up to a minute on the heavy tasks.)"""
    task = lhtb.load_task(task_dir)
    nop = await lhtb.run_episode(
        task,
        NopAgent(),
        backend=local_backend,
        seed=SEED,
        budget=120,
        continue_until_timeout=False,
        output_dir=tmp_path / "nop-episode",
    )
    assert nop.outcome is lhtb.Outcome.UNSOLVED, (nop.error, nop.passes)
    assert nop.reward is not None
    assert nop.reward < task.verifier.pass_threshold
    verifier = lhtb.Verifier(task, local_backend, seed=SEED, output_dir=tmp_path / "grades")
    async with lhtb.open_sandbox(task, backend=local_backend) as sandbox:
        await run_oracle(task, sandbox)
        oracle_files = await save_artifacts(task, sandbox, tmp_path / "oracle-files")
    oracle = await verifier.grade_files(oracle_files)
    where = f"{task.name}: see {tmp_path}"
    assert oracle.reward == 1.0, where
    assert oracle.outcome is lhtb.PassOutcome.PASSED, where
    assert oracle.seed == SEED


@pytest.mark.parametrize("task_dir", DOCKER_ONLY_DIRS, ids=[p.name for p in DOCKER_ONLY_DIRS])
async def test_the_local_backend_refuses_the_other_tasks(
    task_dir: Path, local_backend: SandboxBackend
) -> None:
    """A task left out above is one the local backend itself refuses, saying why."""
    with pytest.raises((SetupError, UnsupportedFeatureError), match="Docker"):
        await local_backend.prepare(lhtb.load_task(task_dir))
