"""Re-grading a live-verified episode: the subtasks that graded the agent's running
services come from the record, every other subtask is graded again.

The fixture task is verified live from a ``separate`` sandbox (Docker): its
``service`` subtask asks the agent's service on localhost, its ``answer``
subtask reads the kept ``/app/answer.txt`` and, like a seeded hidden suite,
depends on the seed (1.0 on even seeds, 0.5 on odd ones). A re-grade runs in a
fresh sandbox where no service answers.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

import lhtb
from lhtb.analysis import regrade
from lhtb.cli import main
from lhtb.sandbox.docker import DockerBackend

pytestmark = [pytest.mark.anyio, pytest.mark.docker]

EVEN_SEED = 50_002
ODD_SEED = 50_001

SERVICE = """\
use IO::Socket::INET;
my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:8765", Listen => 5, ReuseAddr => 1) or die;
while (my $c = $s->accept) { print $c "pong\\n"; close $c; }
"""
TEST_SH = """\
#!/bin/bash
answer=""
if exec 3<>/dev/tcp/127.0.0.1/8765; then read -r -t 5 answer <&3; exec 3<&-; fi
if [ "$answer" = pong ]; then service=1; else service=0; fi
if [ "$(cat /app/answer.txt 2> /dev/null)" != 42 ]; then file=0
elif [ $(( LHTB_SEED % 2 )) -eq 0 ]; then file=1; else file=0.5; fi
echo "{\\"subtasks\\": [{\\"name\\": \\"service\\", \\"score\\": $service},
  {\\"name\\": \\"answer\\", \\"score\\": $file}]}" > /logs/verifier/scorecard.json
"""


def write_task(root: Path, *, declare_live: bool) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app\nWORKDIR /app\n"
    )
    (root / "tests" / "test.sh").write_text(TEST_SH)
    (root / "instruction.md").write_text("Serve pong on port 8765; write 42 to /app/answer.txt.\n")
    live = "live = true" if declare_live else ""
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            artifacts = ["/app"]

            [agent]
            timeout_sec = 60

            [verifier]
            isolation = "separate"
            live = true
            timeout_sec = 60

            [[verifier.subtasks]]
            name = "service"
            {live}

            [[verifier.subtasks]]
            name = "answer"
            """
        )
    )
    return lhtb.load_task(root)


class ServeAndAnswer:
    """Writes the answer and leaves the service running for the verifier."""

    async def run(self, turn: lhtb.Turn) -> None:
        await turn.sandbox.write_file("/app/answer.txt", "42\n")
        await turn.sandbox.write_file("/app/pong.pl", SERVICE)
        await turn.sandbox.exec("setsid perl /app/pong.pl > /dev/null 2>&1 < /dev/null &")
        up = await turn.sandbox.exec(
            "for _ in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/8765) 2> /dev/null && exit 0; "
            "sleep 0.05; done; exit 1"
        )
        assert up.ok, "the service did not start"


async def live_episode(tmp_path: Path, *, declare_live: bool) -> tuple[Path, lhtb.Episode]:
    task = write_task(tmp_path / "task", declare_live=declare_live)
    directory = tmp_path / "ep"
    episode = await lhtb.run_episode(
        task, ServeAndAnswer(), backend=DockerBackend(), seed=EVEN_SEED, output_dir=directory
    )
    scores = {s.name: s.score for s in episode.scorecard.subtasks} if episode.scorecard else None
    assert episode.config.live_verification
    assert scores == {"service": 1.0, "answer": 1.0}, episode.error  # the service answered
    return directory, episode


async def test_live_subtasks_come_from_the_record_and_files_are_graded_again(
    tmp_path: Path,
) -> None:
    directory, episode = await live_episode(tmp_path, declare_live=True)
    result = await regrade(directory, seeds=[EVEN_SEED, ODD_SEED])
    assert result.carried == ("service",)
    # what the sandboxes graded: no service answers there, the answer follows the seed
    raw = [{s.name: s.score for s in p.scorecard.subtasks} for p in result.graded if p.scorecard]
    assert raw == [{"service": 0.0, "answer": 1.0}, {"service": 0.0, "answer": 0.5}]
    # re-computed: the recorded service score, the re-graded answer, the weighted mean
    scores = [{s.name: s.score for s in p.scorecard.subtasks} for p in result.passes if p.scorecard]
    assert scores == [{"service": 1.0, "answer": 1.0}, {"service": 1.0, "answer": 0.5}]
    assert [p.reward for p in result.passes] == [1.0, 0.75]
    assert result.reproduced()
    assert episode.reward == 1.0

    runner = CliRunner()
    shown = await anyio.to_thread.run_sync(
        lambda: runner.invoke(main, ["verify", str(directory), "--seeds", "2"])
    )
    assert shown.exit_code == 0, shown.output
    assert (
        "reproduced: the recorded reward 1.0000 (1 live subtask \N{EM DASH} service \N{EM DASH} "
        "graded against the agent's running services during the episode, taken from the "
        "record: a re-grade has none)"
    ) in shown.output
    assert "service (live)" in shown.output
    assert "1.0000 from the record" in shown.output
    assert "the other seeds carry the recorded seed's scores of the 1 live subtask" in shown.output


async def test_a_subtask_graded_live_but_not_declared_so_is_not_reproduced(
    tmp_path: Path,
) -> None:
    directory, _ = await live_episode(tmp_path, declare_live=False)
    result = await regrade(directory)
    assert result.carried == ()
    assert [p.reward for p in result.passes] == [0.5]  # the service is graded again: 0
    assert not result.reproduced()
    runner = CliRunner()
    shown = await anyio.to_thread.run_sync(lambda: runner.invoke(main, ["verify", str(directory)]))
    assert shown.exit_code == 1
    assert "NOT reproduced" in shown.output
