"""Starting a local sandbox's init: the host reads the monitor's ``PID n`` and the init's
``READY`` in whichever order they reach the shared pipe.

Real processes stand in for the monitor (a shell script given as the interpreter): no
namespaces, no Docker, no root.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
from pathlib import Path

import pytest

from conftest import IN_CI
from lhtb.errors import SandboxError
from lhtb.sandbox.local._network import SLIRP, start_slirp
from lhtb.sandbox.local._process import spawn_init


def _monitor(tmp_path: Path, body: str) -> str:
    """An executable that takes spawn_init's arguments and script, then runs ``body``."""
    script = tmp_path / "monitor.sh"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


@pytest.mark.parametrize(
    "order",
    ['echo "PID $$"; echo READY', 'echo READY; echo "PID $$"'],
    ids=["pid-first", "ready-first"],
)
def test_the_init_pid_is_known_whichever_line_comes_first(tmp_path: Path, order: str) -> None:
    """A monitor descheduled after its fork writes its PID after the init's READY; the
    host once returned PID 0 then (slirp4netns: "PID must be a positive integer")."""
    python = _monitor(tmp_path, f"{order}\nexec sleep 600")
    monitor, init_pid = spawn_init(python, tmp_path, "t", start_timeout=60)
    try:
        assert init_pid == monitor.pid  # the shell's $$, kept by exec
    finally:
        os.killpg(monitor.pid, signal.SIGKILL)
        monitor.wait()


def test_an_error_line_after_the_pid_is_reported(tmp_path: Path) -> None:
    python = _monitor(tmp_path, 'echo "PID $$"; echo "ERROR OSError: mount refused"')
    with pytest.raises(SandboxError, match="the sandbox init failed: ERROR OSError: mount"):
        spawn_init(python, tmp_path, "t", start_timeout=60)


def test_a_refused_slirp4netns_says_why_not_its_usage(tmp_path: Path) -> None:
    """slirp4netns follows its reason with the usage text; the error keeps the reason."""
    if shutil.which(SLIRP) is None:
        message = "slirp4netns is not installed (apt-get install slirp4netns)"
        if IN_CI:
            pytest.fail(f"{message}, and CI=true")
        pytest.skip(message)
    with pytest.raises(SandboxError) as raised:
        start_slirp(0, tmp_path, rootless=False, timeout=60)
    assert "PID must be a positive integer" in str(raised.value)
    assert "Usage:" not in str(raised.value)
    assert "Usage:" in (tmp_path / "slirp4netns.log").read_text()
