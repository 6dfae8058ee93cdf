"""`lhtb play` driven in tmux like a person: work, submit, feedback, the record."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import lhtb

from .session_helpers import write_task

SRC = Path(__file__).resolve().parents[2] / "src"
WAIT_SEC = 120.0  # far above the seconds each step takes on a loaded machine


class Pane:
    """A tmux session on a private server; ``wait_for`` reads the screen until text shows."""

    def __init__(self, command: str) -> None:
        self.server = f"lhtb-test-{uuid.uuid4().hex[:8]}"
        self._tmux("new-session", "-d", "-s", "play", "-x", "220", "-y", "60", command)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.server, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def type(self, line: str) -> None:
        self._tmux("send-keys", "-t", "play", "-l", line)
        self._tmux("send-keys", "-t", "play", "Enter")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "play", "-S", "-200")

    def wait_for(self, text: str, *, count: int = 1) -> str:
        deadline = time.monotonic() + WAIT_SEC
        while time.monotonic() < deadline:
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            time.sleep(0.2)
        pytest.fail(f"{text!r} never showed ({count}x); the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.server, "kill-server"], check=False, capture_output=True)


@pytest.fixture
def tmux() -> type[Pane]:
    if shutil.which("tmux") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("tmux is missing, and CI=true")
        pytest.skip("tmux is not installed")
    return Pane


def test_a_person_works_submits_and_is_recorded(
    tmux: type[Pane], local_backend: object, tmp_path: Path
) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    lhtb_cli = f"{shlex.quote(sys.executable)} -c 'import sys; from lhtb.cli import main; main()'"
    command = (
        f"env PYTHONPATH={shlex.quote(str(SRC))} {lhtb_cli} play {tmp_path / 'task'} "
        f"--backend local --name alice --out {out}; echo PLAY-EXITED; sleep 600"
    )
    pane = tmux(command)
    try:
        pane.wait_for("| passes 0] $")
        assert "Write 42 to /app/answer.txt." in pane.screen()
        pane.type("cd /app")
        pane.wait_for("| passes 0] /app$")
        pane.type("echo 41 > answer.txt")
        pane.wait_for("/app$", count=2)
        pane.type("submit")
        screen = pane.wait_for("| turn 2 |")
        assert "rejected. Your work did not pass the hidden verification" in screen
        assert "| passes 1] /app$" in screen
        pane.type("echo 42 > answer.txt; cat answer.txt")
        pane.wait_for("\n42\n")
        pane.type("submit")
        screen = pane.wait_for("PLAY-EXITED")
        assert "the episode is over: solved (reward 1)" in screen
    finally:
        pane.close()
    episode = lhtb.Episode.load(out / "episode.json")
    assert episode.config.agent == "human:alice"
    assert (str(episode.outcome), [p.reward for p in episode.passes]) == ("solved", [0.0, 1.0])
