"""Internet for local sandboxes: user-mode networking attached to their own namespace.

Every local sandbox has its own network namespace (loopback only). When its task
allows internet, the host starts ``slirp4netns`` for it: a user-mode TCP/IP stack
that forwards the sandbox's connections from the host's side, as an ordinary
process would make them. ``--disable-host-loopback`` refuses connections to the
host's ``127.0.0.1`` (a model server, Ray, a database), and the sandbox has no
``CAP_NET_RAW``, so no packet sockets either.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

from lhtb.errors import BackendUnavailableError, SandboxError

__all__ = ["SLIRP", "start_slirp"]

SLIRP = "slirp4netns"
_TAP = "tap0"


def start_slirp(
    init_pid: int, directory: Path, *, rootless: bool, timeout: float
) -> subprocess.Popen[bytes]:
    """Attach ``slirp4netns`` to the network namespace of ``init_pid``; wait until ready.

    Raises:
        BackendUnavailableError: ``slirp4netns`` is not installed.
        SandboxError: it exited or did not report ready within ``timeout``.
    """
    binary = shutil.which(SLIRP)
    if binary is None:
        raise BackendUnavailableError(
            "the task allows internet, and local sandboxes reach it through "
            "`slirp4netns`, which is not installed",
            where="local backend",
            fix="Install it (`apt-get install slirp4netns`), set "
            "`[environment].allow_internet = false` in task.toml, or use the Docker backend",
        )
    ready_r, ready_w = os.pipe()
    argv = [binary, "--configure", "--mtu=65520", "--disable-host-loopback"]
    argv += [f"--ready-fd={ready_w}"]
    if rootless:
        argv += [f"--userns-path=/proc/{init_pid}/ns/user"]
    argv += [str(init_pid), _TAP]
    try:
        with (directory / "slirp4netns.log").open("wb") as log_file:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=log_file,
                pass_fds=(ready_w,),
                start_new_session=True,
            )
        os.close(ready_w)
        ready_w = -1
        give_up = time.monotonic() + timeout
        while True:
            left = give_up - time.monotonic()
            readable, _, _ = select.select([ready_r], [], [], max(0.0, left))
            if readable and os.read(ready_r, 1) == b"1":
                return process
            if readable or left <= 0 or process.poll() is not None:
                break
        process.kill()
        process.wait()
        output = (directory / "slirp4netns.log").read_text(errors="replace")
        # a refused argument is said first, then the usage text (stdout, flushed at exit)
        detail = (output.split("Usage:", 1)[0].strip() or output.strip())[-500:]
        raise SandboxError(
            f"slirp4netns did not bring the sandbox's network up: {detail or 'no output'}",
            where=f"local sandbox {directory.name}",
            fix="See slirp4netns.log in the sandbox directory, or set "
            "`[environment].allow_internet = false`",
        )
    finally:
        os.close(ready_r)
        if ready_w >= 0:
            with contextlib.suppress(OSError):
                os.close(ready_w)
