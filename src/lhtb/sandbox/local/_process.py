"""Host-side process management of local sandboxes: start an init, stop and remove one.

A sandbox's init is started through a small monitor process (its own session,
so it outlives a crashed harness until ``cleanup``); the monitor prints the
init's host PID, the init prints ``READY`` once its root is built (in either
order). Every PID is recorded with its kernel start time in ``sandbox.json``,
so cleanup never signals a recycled PID.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import IO, Any

from lhtb.errors import SandboxError
from lhtb.sandbox.host._trees import remove_tree
from lhtb.sandbox.local._cgroups import Freezer, Limits, process_alive

__all__ = [
    "FIX_USERNS",
    "read_json",
    "remove_sandbox_sync",
    "spawn_init",
    "stop_sandbox_sync",
]

INIT_SCRIPT = Path(__file__).with_name("_sandbox_init.py")
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
FIX_USERNS = (
    "Run as root, or enable unprivileged user namespaces "
    "(`sysctl kernel.unprivileged_userns_clone=1`, `sysctl user.max_user_namespaces=15000`, "
    "and on Ubuntu `sysctl kernel.apparmor_restrict_unprivileged_userns=0`), "
    "or use the Docker backend (`--backend docker`)"
)


def spawn_init(
    python: str, directory: Path, task_name: str, start_timeout: float
) -> tuple[subprocess.Popen[bytes], int]:
    """Start a sandbox's init; return the monitor process and the init's host PID.

    Raises:
        SandboxError: the init reported an error or did not report ready in time.
    """
    log_file = (directory / "init.log").open("wb")
    try:
        # The program comes on stdin and the config path in the environment:
        # /proc/1/cmdline is readable inside the sandbox and should name no host path.
        # The host's environment (API keys ...) is not passed on.
        monitor = subprocess.Popen(
            ["lhtb-sandbox-init", "-I", "-S", "-"],
            executable=python,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log_file,
            start_new_session=True,
            env={"LHTB_INIT_CONFIG": str(directory / "init.json"), "PATH": DEFAULT_PATH},
        )
    finally:
        log_file.close()
    assert monitor.stdout is not None
    assert monitor.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        monitor.stdin.write(INIT_SCRIPT.read_bytes())
    monitor.stdin.close()
    deadline = time.monotonic() + start_timeout
    init_pid = 0
    ready = False
    try:
        # The monitor's "PID n" and the init's "READY" share the pipe and come in either
        # order: a monitor descheduled right after its fork writes after a quick init.
        while not (ready and init_pid):
            line = _read_line(monitor.stdout, deadline)
            if line.startswith("PID "):
                init_pid = int(line.split()[1])
            elif line == "READY":
                ready = True
            else:
                detail = line or (directory / "init.log").read_text(errors="replace")[-1500:]
                raise SandboxError(  # noqa: TRY301 - the handler kills the init
                    f"the sandbox init failed: {detail.strip() or 'no output'}",
                    where=f"local sandbox for {task_name}",
                    fix=_init_fix(detail),
                )
    except BaseException:
        with contextlib.suppress(OSError):
            os.killpg(monitor.pid, signal.SIGKILL)
        if init_pid:
            with contextlib.suppress(OSError):
                os.kill(init_pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            monitor.wait(timeout=5)
        raise
    else:
        return monitor, init_pid
    finally:
        monitor.stdout.close()


def read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def remove_sandbox_sync(directory: Path) -> None:
    """Stop a sandbox and delete its directory."""
    stop_sandbox_sync(directory)
    remove_tree(directory)


def stop_sandbox_sync(directory: Path) -> None:
    """Kill a sandbox's init (and so every process in it), then remove its cgroups."""
    record = read_json(directory / "sandbox.json")
    pids = [
        (record.get("init_pid"), record.get("init_start")),
        (record.get("monitor_pid"), record.get("monitor_start")),
        (record.get("slirp_pid"), record.get("slirp_start")),
    ]
    for pid, start in pids:
        if isinstance(pid, int) and pid > 0 and process_alive(pid, start):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    version, base = record.get("freezer") or [0, None]
    if base is None:
        base_path = None
        for candidate in (
            Path("/sys/fs/cgroup/freezer/lhtb") / directory.name,
            Path("/sys/fs/cgroup/lhtb") / directory.name,
            Path("/sys/fs/cgroup/unified/lhtb") / directory.name,
        ):
            if candidate.exists():
                base_path = candidate
                version = 1 if "freezer" in str(candidate) else 2
        freezer = Freezer(version, base_path)
    else:
        freezer = Freezer(int(version), Path(base))
    freezer.remove()
    Limits.remove(directory.name)
    deadline = time.monotonic() + 10
    for pid, start in pids:
        while isinstance(pid, int) and pid > 0 and process_alive(pid, start):
            with contextlib.suppress(ChildProcessError, OSError):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        if isinstance(pid, int) and pid > 0:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)  # our child (monitor, slirp4netns): no zombie


def _read_line(stream: IO[bytes], deadline: float) -> str:
    buffer = b""
    while not buffer.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SandboxError(
                "the sandbox init did not report ready in time",
                where="local backend",
                fix="Raise LocalSettings.start_timeout_sec, or check the host's load",
            )
        ready, _, _ = select.select([stream], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(stream.fileno(), 1)
        if not chunk:
            break
        buffer += chunk
    return buffer.decode(errors="replace").strip()


def _init_fix(detail: str) -> str:
    if "Operation not permitted" in detail or "unshare" in detail:
        return FIX_USERNS
    if "overlay" in detail:
        return "The host's kernel refused the overlay mount; use the Docker backend"
    return (
        "See init.log in the sandbox directory; "
        "run `lhtb cleanup --backend local --run-id RUN_ID` to remove leftovers"
    )
