"""`lhtb serve` with `lhtb exec` and `lhtb submit` from another process, as from a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import lhtb

from .session_helpers import write_task

SRC = Path(__file__).resolve().parents[2] / "src"
LHTB = [sys.executable, "-c", "import sys; from lhtb.cli import main; main()"]
ENV = {**os.environ, "PYTHONPATH": str(SRC)}


def lhtb_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LHTB, *args], capture_output=True, text=True, env=ENV, timeout=300, check=False
    )


def test_serve_with_exec_and_submit_from_other_terminals(
    local_backend: object, tmp_path: Path
) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    serve = subprocess.Popen(
        [*LHTB, "serve", str(tmp_path / "task"), "--backend", "local", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        assert serve.stdout is not None
        first = serve.stdout.readline()
        assert first.startswith("session: "), first
        socket = first.removeprefix("session: ").strip()
        wrote = lhtb_cli("exec", socket, "--", "echo 41 > /app/answer.txt")
        assert wrote.returncode == 0, wrote.stderr
        shown = lhtb_cli("exec", socket, "--", "cat", "/app/answer.txt")
        assert (shown.returncode, shown.stdout) == (0, "41\n")
        failed = lhtb_cli("exec", socket, "--", "ls /nowhere")
        assert failed.returncode == 2
        assert "nowhere" in failed.stderr
        rejected = lhtb_cli("submit", socket)
        assert rejected.returncode == 1
        assert rejected.stdout.startswith("rejected. Your work did not pass")
        assert lhtb_cli("exec", socket, "--", "echo 42 > /app/answer.txt").returncode == 0
        solved = subprocess.run(
            [*LHTB, "submit"],
            capture_output=True,
            text=True,
            env={**ENV, "LHTB_SESSION": socket},
            timeout=300,
            check=False,
        )
        assert (solved.returncode, solved.stdout) == (
            0,
            "the episode is over: solved (reward 1)\n",
        )
        rest, _ = serve.communicate(timeout=300)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.communicate()
    assert serve.returncode == 0
    assert "episode solved (reward 1)" in rest
    assert not Path(socket).parent.exists()  # the socket and its private directory are gone
    episode = lhtb.Episode.load(out / "episode.json")
    assert (episode.config.agent, [p.reward for p in episode.passes]) == ("external", [0.0, 1.0])
    no_session = lhtb_cli("submit", socket)
    assert no_session.returncode == 1
    assert "no session socket here" in no_session.stderr


def _graded_checkpoints(events: Path, reward: float) -> int:
    """How many checkpoint_graded events with ``reward`` the episode's log holds so far."""
    if not events.exists():
        return 0
    lines = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
    return sum(e["event"] == "checkpoint_graded" and e["reward"] == reward for e in lines)


def _wait_for(condition: Callable[[], bool], what: str, serve: subprocess.Popen[str]) -> None:
    """Poll a file-backed condition (the episode's own log) until it holds or serve exits."""
    for _ in range(6000):
        if condition():
            return
        assert serve.poll() is None, f"lhtb serve exited before {what}"
        time.sleep(0.05)  # polling the log for an event, not waiting for time to pass
    raise AssertionError(f"no {what} after 300 s")


def test_serve_checkpoints_record_the_reward_curve(backend_name: str, tmp_path: Path) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    events = out / "events.jsonl"
    argv = [*LHTB, "serve", str(tmp_path / "task"), "--backend", backend_name]
    serve = subprocess.Popen(
        [*argv, "--out", str(out), "--checkpoint-every", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        assert serve.stdout is not None
        socket = serve.stdout.readline().removeprefix("session: ").strip()
        assert lhtb_cli("exec", socket, "--", "echo 41 > /app/answer.txt").returncode == 0
        _wait_for(lambda: _graded_checkpoints(events, 0.0) > 0, "checkpoint at 0", serve)
        assert lhtb_cli("exec", socket, "--", "echo 42 > /app/answer.txt").returncode == 0
        _wait_for(lambda: _graded_checkpoints(events, 1.0) > 0, "checkpoint at 1", serve)
        assert lhtb_cli("submit", socket).returncode == 0
        serve.communicate(timeout=300)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.communicate()
    assert serve.returncode == 0
    episode = lhtb.Episode.load(out / "episode.json")
    assert episode.config.checkpoint_interval_sec == 2
    rewards = [c.reward for c in episode.checkpoints]
    assert rewards[0] == 0.0
    assert rewards[-1] == 1.0
    assert rewards == sorted(rewards)  # the curve rises once, when 42 is written
    report = tmp_path / "report.html"
    shown = lhtb_cli("report", str(out), "-o", str(report))
    assert shown.returncode == 0, shown.stderr
    html = report.read_text()
    assert "hidden checkpoints" in html
    last = episode.checkpoints[-1]
    assert f"checkpoint {last.number} at" in html
    assert "reward 1.000" in html
    assert "reward 0.000" in html
