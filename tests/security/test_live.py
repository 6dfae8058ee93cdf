"""Live verification (``[verifier].live``, Harbor's behaviour): the agent's processes
keep running while the tests run in its sandbox.

What it still guarantees when the agent runs as an unprivileged ``[agent].user``
and the tests as root (the default): a poller the agent left running, alive
throughout the pass, can neither read the tests, their logs or scratch, nor
write the reward. With a root agent nothing stops it: the poller reads the
tests (the documented limit, docs/isolation.md).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import attrs
import pytest

import lhtb
from lhtb.sandbox.base import SandboxBackend

from ._attack import MARK, SECRET

pytestmark = [pytest.mark.anyio]

HOME = "/home/worker"
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
