"""End-to-end episodes on real Docker: real tasks, Harbor tasks, feedback and isolation.

The state machine itself (modes, budgets, passes, failures, records) is tested on the
in-memory backend in test_runner_fake.py; late writers and runaway agents on every
backend in tests/security/test_timing.py.
"""

from __future__ import annotations

import json
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import lhtb
from lhtb.agents import NopAgent, OracleAgent
from lhtb.episode._feedback import BINARY_SENTENCE
from lhtb.sandbox.docker import DockerBackend

pytestmark = [pytest.mark.docker, pytest.mark.anyio]

REPO = Path(__file__).resolve().parent.parent
SECRET = "HIDDEN-TEST-MARKER-5b1f"

# A tiny task: write 42 to /app/answer.txt. The test also drops a secret in its logs.
TEST_SH = f"""#!/bin/sh
# {SECRET}
echo "{SECRET}" > /logs/verifier/secret.txt
if [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; then score=1; else score=0; fi
printf '{{"subtasks": [{{"name": "answer", "score": %s, "visibility": "hidden"}}]}}' "$score" \\
  > /logs/verifier/scorecard.json
"""


def write_task(root: Path, *, isolation: str = "separate", test_sh: str = TEST_SH) -> Path:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app\nWORKDIR /app\n"
    )
    (root / "tests" / "test.sh").write_text(test_sh)
    (root / "tests" / "hidden_cases.txt").write_text(f"{SECRET}\n")
    artifacts = 'artifacts = ["/app"]\n' if isolation == "separate" else ""
    (root / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            schema_version = "1.1"
            {artifacts}
            [agent]
            timeout_sec = 120
            continue_until_timeout = true

            [verifier]
            isolation = "{isolation}"
            timeout_sec = 60
            max_passes = 5
            """
        )
    )
    return root


@pytest.fixture(scope="module")
def backend() -> DockerBackend:
    return DockerBackend()


@pytest.fixture
def run_id(docker_client: Any) -> Iterator[str]:
    """A run id per test; the test must leave no container or snapshot image under it."""
    value = f"test-{uuid.uuid4().hex[:10]}"
    yield value
    label = {"label": f"lhtb.run={value}"}
    assert [c.name for c in docker_client.containers.list(all=True, filters=label)] == []
    assert [i.tags for i in docker_client.images.list(filters=label)] == []


def outcome_of(episode: lhtb.Episode) -> tuple[str, float | None, int]:
    return str(episode.outcome), episode.reward, len(episode.passes)


class Scripted:
    """Stops with a wrong answer first, then fixes it after the rejection."""

    def __init__(self) -> None:
        self.feedback: list[str | None] = []

    async def run(self, turn: lhtb.Turn) -> None:
        self.feedback.append(turn.feedback)
        answer = "41" if turn.number == 1 else "42"
        await turn.sandbox.write_file("/app/answer.txt", answer)


async def test_oracle_solves_the_starter_task(
    backend: DockerBackend, tmp_path: Path, run_id: str
) -> None:
    task = lhtb.load_task(REPO / "tasks" / "climate-extremes")
    episode = await lhtb.run_episode(
        task, OracleAgent(task), backend=backend, run_id=run_id, output_dir=tmp_path
    )
    assert outcome_of(episode) == ("solved", 1.0, 1)
    assert episode.solved
    assert episode.strict
    assert episode.scorecard is not None
    assert {s.name for s in episode.scorecard.subtasks} >= {"cli_contract", "nested_manifest"}
    saved = lhtb.Episode.load(tmp_path / "episode.json")
    assert saved == episode
    events = [json.loads(line)["event"] for line in (tmp_path / "events.jsonl").open()]
    assert events[0] == "episode_started"
    assert events[-1] == "episode_finished"


async def test_nop_is_unsolved_with_its_reward(
    backend: DockerBackend, tmp_path: Path, run_id: str
) -> None:
    task = lhtb.load_task(REPO / "tasks" / "climate-extremes")
    episode = await lhtb.run_episode(
        task,
        NopAgent(),
        backend=backend,
        run_id=run_id,
        output_dir=tmp_path,
        budget=60,
        max_passes=2,
    )
    assert outcome_of(episode) == ("unsolved", 0.0, 2)
    assert not episode.config.comparable  # the budget was changed


async def test_rejected_then_resumed_and_solved(
    backend: DockerBackend, tmp_path: Path, run_id: str
) -> None:
    task = lhtb.load_task(write_task(tmp_path / "task"))
    agent = Scripted()
    episode = await lhtb.run_episode(
        task, agent, backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
    )
    assert outcome_of(episode) == ("solved", 1.0, 2)
    assert [p.reward for p in episode.passes] == [0.0, 1.0]
    assert agent.feedback[0] is None
    rejection = agent.feedback[1]
    assert rejection is not None
    assert rejection.startswith(BINARY_SENTENCE.split("{", 1)[0])
    assert "pass 1" in rejection
    assert SECRET not in rejection
    assert "answer" not in rejection


async def test_harbor_task_runs_unchanged(
    backend: DockerBackend, tmp_path: Path, run_id: str
) -> None:
    harbor = tmp_path / "harbor-task"
    (harbor / "environment").mkdir(parents=True)
    (harbor / "tests").mkdir()
    (harbor / "solution").mkdir()
    (harbor / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    (harbor / "instruction.md").write_text("Create /app/hello.txt containing 'hello'.\n")
    (harbor / "task.toml").write_text(
        'version = "1.0"\n\n[metadata]\nauthor_name = "someone"\ndifficulty = "easy"\n\n'
        "[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 60.0\n\n"
        '[environment]\nbuild_timeout_sec = 300.0\ncpus = 1\nmemory = "1G"\n'
    )
    (harbor / "solution" / "solve.sh").write_text("#!/bin/bash\necho hello > /app/hello.txt\n")
    (harbor / "tests" / "test.sh").write_text(
        "#!/bin/bash\nif grep -qx hello /app/hello.txt; then echo 1 > /logs/verifier/reward.txt;"
        " else echo 0 > /logs/verifier/reward.txt; fi\n"
    )
    task = lhtb.load_task(harbor)
    assert task.verifier.isolation is lhtb.IsolationMode.SHARED
    episode = await lhtb.run_episode(
        task, OracleAgent(task), backend=backend, run_id=run_id, output_dir=tmp_path / "e"
    )
    assert outcome_of(episode) == ("solved", 1.0, 1)
    assert episode.scorecard is not None
    assert episode.scorecard.source == "reward.txt"


@pytest.mark.parametrize("isolation", ["separate", "snapshot", "shared"])
async def test_tests_and_logs_never_reach_the_agent(
    backend: DockerBackend, tmp_path: Path, run_id: str, isolation: str
) -> None:
    """A poller copies /tests and /logs/verifier while passes run; nothing arrives."""

    class Snooper:
        def __init__(self) -> None:
            self.seen: list[str] = []

        async def run(self, turn: lhtb.Turn) -> None:
            if turn.number == 1:
                await turn.sandbox.exec(
                    "mkdir -p /loot; nohup sh -c 'while :; do echo $$ > /loot/poller; "
                    "cp -r /tests /logs /loot/ 2>/dev/null; sleep 0.05; done' >/dev/null 2>&1 &"
                )
                with anyio.fail_after(60):  # the poller runs before the first pass
                    while not (await turn.sandbox.exec(["test", "-s", "/loot/poller"])).ok:
                        await anyio.sleep(0.05)
                return
            found = await turn.sandbox.exec(
                f"grep -rl {SECRET} /loot /tests /logs /tmp /app 2>/dev/null; ls -la /tests /logs;"
                " kill -0 $(cat /loot/poller) && echo poller-alive"
            )
            self.seen.append(found.stdout_text + found.stderr_text)
            await turn.sandbox.write_file("/app/answer.txt", "42")

    task = lhtb.load_task(write_task(tmp_path / "task", isolation=isolation))
    agent = Snooper()
    episode = await lhtb.run_episode(
        task, agent, backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
    )
    assert outcome_of(episode) == ("solved", 1.0, 2)
    assert len(agent.seen) == 1
    assert SECRET not in agent.seen[0]
    assert "poller-alive" in agent.seen[0]  # it ran through the first pass
    # The verifier's output reached the host, one folder per pass.
    for number in (1, 2):
        secret = tmp_path / "ep" / "verifier" / f"pass-{number:03d}" / "secret.txt"
        assert secret.read_text().strip() == SECRET


# The tests mark that they run, then block: the pass holds the agent's container frozen.
BLOCKING_TEST_SH = "#!/bin/sh\ntouch /logs/verifier/started\nexec sleep 600\n"


async def test_a_run_cancelled_mid_snapshot_pass_leaves_nothing_frozen(
    backend: DockerBackend, tmp_path: Path, run_id: str, docker_client: Any
) -> None:
    """Cancelled while a snapshot pass holds the agent's container frozen: the container is
    thawed and removed, and the daemon still runs containers (removing a frozen container
    wedges dockerd)."""
    from lhtb.sandbox.host._freeze import CGROUP_ROOT, FROZEN_CHILD, CgroupFreezer, _cgroup_dirs

    task = lhtb.load_task(
        write_task(tmp_path / "task", isolation="snapshot", test_sh=BLOCKING_TEST_SH)
    )
    label = f"lhtb.run={run_id}"
    seen: list[CgroupFreezer] = []

    def tests_running() -> bool:
        found = docker_client.containers.list(filters={"label": [label, "lhtb.role=verifier"]})
        return bool(found) and found[0].exec_run(["test", "-e", "/logs/verifier/started"])[0] == 0

    async def cancel_while_frozen(scope: anyio.CancelScope) -> None:
        with anyio.fail_after(300):
            while not await anyio.to_thread.run_sync(tests_running):
                await anyio.sleep(0.1)
        [agent] = docker_client.containers.list(filters={"label": [label, "lhtb.role=agent"]})
        pid, found = agent.attrs["State"]["Pid"], agent.id
        seen.extend(
            CgroupFreezer(version, base)
            for version, base in _cgroup_dirs(pid, found, CGROUP_ROOT, ("freezer",))
            if (base / FROZEN_CHILD).is_dir()
        )
        assert seen, "this daemon is local: the host sees the container's freezer"
        assert all(f.is_frozen() for f in seen), "the pass holds the agent's container frozen"
        scope.cancel()

    class Answers:
        async def run(self, turn: lhtb.Turn) -> None:
            await turn.sandbox.write_file("/app/answer.txt", "42")

    async with anyio.create_task_group() as group:
        group.start_soon(cancel_while_frozen, group.cancel_scope)
        await lhtb.run_episode(
            task, Answers(), backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
        )
    assert not [f.child for f in seen if f.child.exists() and f.is_frozen()], "left frozen"
    with anyio.fail_after(120):  # a daemon wedged by a frozen container hangs here
        await anyio.to_thread.run_sync(
            lambda: docker_client.containers.run(
                "debian:bookworm-slim", ["true"], remove=True, labels={"lhtb.run": run_id}
            )
        )
