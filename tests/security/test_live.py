"""Live verification (``[verifier].live``, Harbor's behaviour): the agent's processes
keep running while the tests run in its sandbox.

What it still guarantees when the agent runs as an unprivileged ``[agent].user``
and the tests as root (the default): a poller the agent left running, alive
throughout the pass, can neither read the tests, their logs or scratch, nor
write the reward. With a root agent nothing stops it: the poller reads the
tests (the documented limit, docs/isolation.md).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import attrs
import pytest

import lhtb
from lhtb.errors import SandboxError
from lhtb.sandbox.base import SandboxBackend

from ._attack import MARK, SECRET
from .conftest import available, make_backend

pytestmark = [pytest.mark.anyio]

HOME = "/home/worker"


@pytest.fixture
def docker_backend_only(request: pytest.FixtureRequest) -> SandboxBackend:
    available("docker", request)
    return make_backend("docker")


# Copies whatever it can of the grader into loot, tries to forge the reward, and
# stamps the time, every 20 ms, for as long as it lives.
POLLER = f"""\
# {MARK}
while :; do
  cat /tests/* /tests/.* /logs/verifier/* /tmp/lhtb-verifier/* >> {HOME}/loot 2>/dev/null
  echo 1 > /logs/verifier/reward.txt 2>/dev/null
  echo '{{"reward": 1.0}}' > /logs/verifier/reward.json 2>/dev/null
  date +%s%N > {HOME}/alive.new && mv {HOME}/alive.new {HOME}/alive
  sleep 0.02
done
"""
# Reward 1 only for the right answer (the agent writes a wrong one). The tests wait so
# the poller has time, then report whether it was alive during the pass and what it got.
TEST_SH = f"""\
#!/bin/sh
# {SECRET}
started=$(date +%s%N)
sleep 2
alive=$(cat {HOME}/alive 2> /dev/null || echo 0)
[ "$alive" -gt "$started" ] && echo "poller alive during the pass"
echo "LOOT-BEGIN"; tr -d '\\000' < {HOME}/loot 2> /dev/null | tail -c 100000; echo "LOOT-END"
if [ "$(cat {HOME}/answer.txt 2> /dev/null)" = 42 ]; then r=1; else r=0; fi
echo "$r" > /logs/verifier/reward.txt
"""


def write_task(root: Path, *, user: str | None) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN useradd --create-home worker\n"
    )
    (root / "tests" / "test.sh").write_text(TEST_SH)
    (root / "tests" / "expected.txt").write_text(f"42 {SECRET}\n")
    (root / "instruction.md").write_text(f"Write 42 to {HOME}/answer.txt.\n")
    agent_user = f'user = "{user}"' if user else ""
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            [agent]
            timeout_sec = 60
            {agent_user}

            [verifier]
            timeout_sec = 60
            live = true
            """
        )
    )
    return lhtb.load_task(root)


class LeavePoller:
    """Writes a wrong answer and leaves the poller running in the background."""

    async def run(self, turn: lhtb.Turn) -> None:
        await turn.sandbox.write_file(f"{HOME}/answer.txt", "41\n")
        await turn.sandbox.write_file(f"{HOME}/{MARK}.sh", POLLER, mode=0o755)
        await turn.sandbox.exec(f"setsid sh {HOME}/{MARK}.sh > /dev/null 2>&1 < /dev/null &")
        started = await turn.sandbox.exec(
            f"for _ in $(seq 600); do [ -s {HOME}/alive ] && exit 0; sleep 0.05; done; exit 1"
        )
        assert started.ok, "the poller did not start"


def loot(episode_dir: Path) -> tuple[str, str]:
    """(the test output, what the poller collected) of the episode's only pass."""
    stdout = (episode_dir / "verifier" / "pass-001" / "test-stdout.txt").read_text()
    collected = stdout.partition("LOOT-BEGIN")[2].partition("LOOT-END")[0]
    return stdout, collected


async def test_live_pass_keeps_tests_and_reward_from_an_unprivileged_agent(
    backend: SandboxBackend, tmp_path: Path, run_id: str
) -> None:
    task = write_task(tmp_path / "task", user="worker")
    episode = await lhtb.run_episode(
        task, LeavePoller(), backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
    )
    stdout, collected = loot(tmp_path / "ep")
    assert episode.config.live_verification
    assert "poller alive during the pass" in stdout, stdout  # it really ran beside the tests
    assert SECRET not in collected, "the agent's poller read the tests"
    assert episode.reward == 0.0, (episode.error, stdout)  # not forged


async def test_live_pass_with_a_root_agent_lets_it_read_the_tests(
    backend: SandboxBackend, tmp_path: Path, run_id: str
) -> None:
    """The documented limit: a root agent's processes see everything (as in Harbor)."""
    task = write_task(tmp_path / "task", user=None)
    episode = await lhtb.run_episode(
        task, LeavePoller(), backend=backend, run_id=run_id, output_dir=tmp_path / "ep"
    )
    stdout, collected = loot(tmp_path / "ep")
    assert "poller alive during the pass" in stdout, stdout
    assert SECRET in collected
    frozen = attrs.evolve(task, verifier=attrs.evolve(task.verifier, live=False))
    episode = await lhtb.run_episode(
        frozen, LeavePoller(), backend=backend, run_id=run_id, output_dir=tmp_path / "frozen"
    )
    stdout, collected = loot(tmp_path / "frozen")
    assert "poller alive during the pass" not in stdout  # frozen: the default elsewhere
    assert SECRET not in collected
    assert episode.reward == 0.0


SERVICE = """\
use IO::Socket::INET;
my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:8765", Listen => 5, ReuseAddr => 1) or die;
while (my $c = $s->accept) { print $c "pong\\n"; close $c; }
"""
SEPARATE_TEST_SH = f"""\
#!/bin/bash
# {SECRET}
answer=""
if exec 3<>/dev/tcp/127.0.0.1/8765; then read -r -t 5 answer <&3; exec 3<&-; fi
echo "service answered: $answer"
if [ "$(cat /app/answer.txt 2> /dev/null)" = 42 ]; then r=1; else r=0; fi
echo "$r" > /logs/verifier/reward.txt
"""


class ServiceAndPoller:
    """Turn 1: a wrong answer, a service on localhost and a root poller. Later turns: dump
    everything the poller could have collected."""

    def __init__(self) -> None:
        self.seen = bytearray()

    async def run(self, turn: lhtb.Turn) -> None:
        if turn.number == 1:
            await turn.sandbox.write_file("/app/answer.txt", "41\n")
            await turn.sandbox.write_file("/app/pong.pl", SERVICE)
            await turn.sandbox.write_file(f"/app/{MARK}.sh", POLLER.replace(HOME, "/app"))
            await turn.sandbox.exec(
                f"setsid perl /app/pong.pl > /dev/null 2>&1 < /dev/null & "
                f"setsid sh /app/{MARK}.sh > /dev/null 2>&1 < /dev/null &"
            )
            return
        result = await turn.sandbox.exec(
            "cat /app/alive; cat /app/loot /logs/verifier/* 2> /dev/null; ls -laR /tests /logs 2>&1"
        )
        self.seen += result.stdout + result.stderr


async def test_live_separate_verifier_reaches_the_service_and_nothing_else(
    docker_backend_only: SandboxBackend, tmp_path: Path, run_id: str
) -> None:
    """``isolation = "separate"`` with ``live``: the verifier joins the agent sandbox's
    network (its services answer on localhost) but nothing of the tests or the reward is
    in the agent's sandbox, even for a root agent, even across a rejected pass."""
    root = tmp_path / "task"
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app\nWORKDIR /app\n"
    )
    (root / "tests" / "test.sh").write_text(SEPARATE_TEST_SH)
    (root / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            """\
            artifacts = ["/app"]

            [agent]
            timeout_sec = 60
            continue_until_timeout = true

            [verifier]
            isolation = "separate"
            live = true
            max_passes = 2
            timeout_sec = 60
            """
        )
    )
    agent = ServiceAndPoller()
    episode = await lhtb.run_episode(
        lhtb.load_task(root),
        agent,
        backend=docker_backend_only,
        run_id=run_id,
        output_dir=tmp_path / "ep",
    )
    outputs = sorted((tmp_path / "ep" / "verifier").glob("pass-*/test-stdout.txt"))
    assert [p.read_text().splitlines()[0] for p in outputs] == ["service answered: pong"] * 2
    assert episode.config.live_verification
    assert re.match(rb"\d{10,}", agent.seen), agent.seen[:200]  # the poller was alive
    assert b"/tests': No such file or directory" in agent.seen
    assert SECRET.encode() not in agent.seen
    assert (episode.reward, len(episode.passes)) == (0.0, 2), episode.error  # not forged


async def test_local_backend_refuses_live_separate_verification(
    tmp_path: Path, run_id: str
) -> None:
    from lhtb.sandbox.base import SandboxSpec
    from lhtb.sandbox.local import LocalBackend

    task = lhtb.Task(name="t", instruction="x")
    spec = SandboxSpec(image="local:none", task=task, run_id=run_id, network_of="abc")
    with pytest.raises(SandboxError, match="another sandbox's network"):
        await LocalBackend().start(spec)


BUNDLED_TEST_SH = """\
#!/bin/sh
# The image built from tests/Dockerfile brought this script and bundled.txt; the harness
# adds the verifier kit.
ls /tests
if [ -f /tests/bundled.txt ] && [ -f /tests/lhtb_scorecard.py ]; then r=1; else r=0; fi
echo "$r" > /logs/verifier/reward.txt
"""


async def test_live_separate_pass_in_a_verifier_image_keeps_its_tests_and_gets_the_kit(
    docker_backend_only: SandboxBackend, tmp_path: Path, run_id: str
) -> None:
    """A live ``separate`` pass whose verifier image comes from ``tests/Dockerfile`` runs
    the tests the image brought (they are not wiped) and finds the verifier kit beside them."""
    root = tmp_path / "task"
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nRUN mkdir /app\n")
    (root / "tests" / "Dockerfile").write_text("FROM debian:bookworm-slim\nCOPY . /tests/\n")
    (root / "tests" / "test.sh").write_text(BUNDLED_TEST_SH, encoding="utf-8")
    (root / "tests" / "test.sh").chmod(0o755)
    (root / "tests" / "bundled.txt").write_text("from the image\n")
    (root / "instruction.md").write_text("Nothing to do.\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            """\
            artifacts = ["/app"]

            [agent]
            timeout_sec = 60

            [verifier]
            isolation = "separate"
            live = true
            timeout_sec = 60
            """
        )
    )
    episode = await lhtb.run_episode(
        lhtb.load_task(root),
        lhtb.agents.NopAgent(),
        backend=docker_backend_only,
        run_id=run_id,
        output_dir=tmp_path / "ep",
    )
    stdout = (tmp_path / "ep" / "verifier" / "pass-001" / "test-stdout.txt").read_text()
    assert episode.config.live_verification
    assert "bundled.txt" in stdout, stdout
    assert "lhtb_scorecard.py" in stdout, stdout
    assert episode.reward == 1.0, episode.error
