"""`lhtb serve` with `lhtb exec` and `lhtb submit` from another process, as from a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
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
