"""`lhtb play` driven in tmux like a person: a real shell, submit inside and outside, the record."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import lhtb
from lhtb.episode import TurnEnd

from .session_helpers import write_task

SRC = Path(__file__).resolve().parents[2] / "src"
WAIT_SEC = 120.0  # far above the seconds each step takes on a loaded machine
LHTB = f"{shlex.quote(sys.executable)} -c 'import sys; from lhtb.cli import main; main()'"


class Pane:
    """A tmux session on a private server; ``wait_for`` reads the screen until text shows."""

    def __init__(self, command: str) -> None:
        self.server = f"lhtb-test-{uuid.uuid4().hex[:8]}"
        self._tmux("new-session", "-d", "-s", "play", "-x", "200", "-y", "50", command)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.server, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def type(self, line: str) -> None:
        self._tmux("send-keys", "-t", "play", "-l", line)
        self._tmux("send-keys", "-t", "play", "Enter")

    def key(self, name: str) -> None:
        self._tmux("send-keys", "-t", "play", name)

    def resize(self, cols: int, rows: int) -> None:
        self._tmux("resize-window", "-t", "play", "-x", str(cols), "-y", str(rows))

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-J", "-t", "play", "-S", "-500")

    def title(self) -> str:
        return self._tmux("display-message", "-p", "-t", "play", "#{pane_title}").strip()

    def wait_for(self, text: str, *, count: int = 1) -> str:
        return self._wait(lambda: self.screen().count(text) >= count, f"{text!r} ({count}x)")

    def wait_for_title(self, pattern: str) -> str:
        self._wait(lambda: re.search(pattern, self.title()) is not None, f"title {pattern!r}")
        return self.title()

    def _wait(self, condition: object, what: str) -> str:
        deadline = time.monotonic() + WAIT_SEC
        while time.monotonic() < deadline:
            if callable(condition) and condition():
                return self.screen()
            time.sleep(0.2)
        pytest.fail(f"{what} never showed; title {self.title()!r}; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.server, "kill-server"], check=False, capture_output=True)


@pytest.fixture
def tmux() -> type[Pane]:
    if shutil.which("tmux") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("tmux is missing, and CI=true")
        pytest.skip("tmux is not installed")
    return Pane


def test_a_person_works_in_a_shell_submits_and_is_recorded(
    tmux: type[Pane], backend_name: str, tmp_path: Path
) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    tty_before, tty_after = tmp_path / "tty-before", tmp_path / "tty-after"
    command = (
        f"stty -g > {tty_before}; env PYTHONPATH={shlex.quote(str(SRC))} {LHTB} play "
        f"{tmp_path / 'task'} --backend {backend_name} --name alice --out {out} "
        "--checkpoint-every 600; "
        f"stty -g > {tty_after}; echo PLAY-EXITED; sleep 600"
    )
    pane = tmux(command)
    try:
        screen = pane.wait_for("[lhtb] ")  # the sandbox shell's prompt
        assert "Write 42 to /app/answer.txt." in screen
        assert "turn 1 |" in pane.wait_for_title(r"^lhtb \| task \| turn 1 \| \d\d:\d\d left")
        socket_path = re.search(r"session: (\S+)", screen)
        assert socket_path is not None

        # A real shell: the window size, Ctrl-C, and state across commands.
        pane.type("stty size | sed 's/ /x/'")
        pane.wait_for("50x200")
        pane.type(  # a program waiting for SIGWINCH, which shows the new size
            """sh -c 'trap "stty size | tr \\" \\" x; kill \\$!; exit" WINCH; """
            """sleep 600 & echo RESIZE-WAIT-$((6 * 7)); wait'"""
        )
        pane.wait_for("RESIZE-WAIT-42")
        pane.resize(120, 40)
        pane.wait_for("40x120")
        pane.type("sh -c 'echo SLEEPING-$((6 * 7)); exec sleep 600'")
        pane.wait_for("SLEEPING-42")  # the foreground job is running: Ctrl-C is for it
        pane.key("C-c")
        pane.type("echo AFTER-$((6 * 7))")  # would wait out the sleep had Ctrl-C not reached it
        pane.wait_for("AFTER-42")
        pane.type("cd /app")
        pane.type("export X=41")
        pane.type('echo "$X" > answer.txt; lhtb submit; echo "SUBMITTED-$?"')
        screen = pane.wait_for("SUBMITTED-1")
        assert "[lhtb] rejected. Your work did not pass the hidden verification" in screen
        pane.wait_for_title(r"turn 2 \| .* passes 1$")

        # `lhtb submit SESSION` from another terminal: the shell is told too.
        other = subprocess.run(
            [sys.executable, "-c", "from lhtb.cli import main; main()", "submit", socket_path[1]],
            env={**os.environ, "PYTHONPATH": str(SRC)},
            capture_output=True,
            text=True,
            check=False,
        )
        assert (other.returncode, other.stdout[:9]) == (1, "rejected."), other.stderr
        pane.wait_for("[lhtb] submitted from another terminal")
        pane.wait_for_title(r"turn 3 \| .* passes 2$")

        pane.type("export X=42")
        pane.type('echo "$X" > answer.txt && lhtb submit')  # the cwd is still /app
        screen = pane.wait_for("PLAY-EXITED")
        assert "[lhtb] the episode is over: solved (reward 1)" in screen
    finally:
        pane.close()
    assert tty_after.read_text() == tty_before.read_text()  # the terminal is restored
    episode = lhtb.Episode.load(out / "episode.json")
    assert episode.config.agent == "human:alice"
    assert episode.config.checkpoint_interval_sec == 600  # a person's curve, as an agent's
    assert (str(episode.outcome), [p.reward for p in episode.passes]) == ("solved", [0.0, 0.0, 1.0])


@pytest.mark.parametrize("ending", ["budget", "leave-key", "shell-killed", "sigterm"])
def test_the_terminal_is_restored_however_the_play_ends(
    tmux: type[Pane], local_backend: object, tmp_path: Path, ending: str
) -> None:
    write_task(tmp_path / "task")
    out = tmp_path / "ep"
    tty_before, tty_after, pid = (tmp_path / name for name in ("tty-before", "tty-after", "pid"))
    play = (
        f"env PYTHONPATH={shlex.quote(str(SRC))} {LHTB} play "
        f"{tmp_path / 'task'} --backend local --budget 10 --out {out}"
    )
    command = (
        f"stty -g > {tty_before}; sh -c {shlex.quote(f'echo $$ > {pid}; exec {play}')}; "
        f"stty -g > {tty_after}; echo PLAY-EXITED; sleep 600"
    )
    pane = tmux(command)
    try:
        # the relay is up (a 10 s budget leaves a loaded machine time to start the shell)
        pane.wait_for_title(r"^lhtb \| task \| turn 1 ")
        if ending == "leave-key":
            pane.key("C-]")
            pane.wait_for("you left the shell: that is a stop")
        elif ending == "shell-killed":
            pane.type("kill -KILL $$")
            pane.wait_for("the shell ended: that is a stop")
        elif ending == "sigterm":
            os.kill(int(pid.read_text()), signal.SIGTERM)
        screen = pane.wait_for("PLAY-EXITED")
    finally:
        pane.close()
    assert tty_after.read_text() == tty_before.read_text()
    episode = lhtb.Episode.load(out / "episode.json")
    assert episode.finished
    if ending == "budget":
        assert "[lhtb] time is up: your work is verified now" in screen
        assert [t.end for t in episode.turns] == [TurnEnd.DEADLINE]
    elif ending in ("leave-key", "shell-killed"):
        assert "the episode goes on to its end by the rules" in screen
        assert [t.end for t in episode.turns] == [TurnEnd.RETURNED, TurnEnd.DEADLINE]
    else:
        assert "SIGTERM: the episode was cancelled" in screen
        assert str(episode.outcome) == "cancelled"
    if ending != "sigterm":
        assert "episode unsolved" in screen
