"""Freezing a local container's processes from the host, out of the agent's reach.

The in-container SIGSTOP sweep (:mod:`lhtb.sandbox._scripts`) runs the image's
``sh``: a root agent that replaces ``/bin/sh`` defeats it. When the Docker
daemon is local, the host can see the container's processes itself: it reads
the container's cgroup (``cgroup.procs``, v1 or v2) and signals the host pids
directly, round after round until every process is stopped. Nothing inside the
container runs. Processes started later (the verifier's own ``docker exec``)
are not affected, which is why this is a sweep and not the cgroup freezer.

Everything here is blocking; callers run it in a worker thread.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

__all__ = ["HostFreezeError", "cgroup_procs_file", "host_sweep"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
_STOPPED = {"T", "t", "Z", "X", "x"}
_SIGSTOP_BIT = 1 << (signal.SIGSTOP - 1)


class HostFreezeError(Exception):
    """The sweep found no fixpoint."""


def cgroup_procs_file(pid: int, container_id: str, *, root: Path = CGROUP_ROOT) -> Path | None:
    """The ``cgroup.procs`` listing every process of the container whose init is ``pid``.

    ``None`` when this host cannot see the container (a remote daemon, another
    PID namespace, an unreadable or unknown cgroup layout): callers then fall
    back to the in-container sweep.
    """
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    candidates: list[Path] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if container_id not in path:
            continue  # not this container's cgroup (e.g. we are in another namespace)
        relative = path.lstrip("/")
        if controllers == "":
            candidates += [root / relative, root / "unified" / relative]
        for name in ("pids", "freezer", "cpuacct", "memory"):
            if name in controllers.split(","):
                candidates.append(root / controllers / relative)
    for candidate in candidates:
        procs = candidate / "cgroup.procs"
        with contextlib.suppress(OSError):
            if str(pid) in procs.read_text().split():
                return procs
    return None


def _stop_pending(pid: int) -> bool:
    """True when SIGSTOP is pending for ``pid`` (it stops on its way back to user space)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    for line in status.splitlines():
        if line.startswith(("ShdPnd:", "SigPnd:")):
            with contextlib.suppress(ValueError):
                if int(line.split()[1], 16) & _SIGSTOP_BIT:
                    return True
    return False


def _running(pid: int) -> bool | None:
    """Whether any thread of ``pid`` may still run user code; ``None`` when it is gone.

    A thread in uninterruptible sleep (``D``: a vfork parent waiting for a
    stopped child, a slow disk) with SIGSTOP pending counts as stopped: it
    finishes the system call it is in, then stops before running user code.
    """
    try:
        tasks = [entry.name for entry in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return None
    for tid in tasks:
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        state = stat.rsplit(")", 1)[-1].split()[0:1]
        if not state or state[0] in _STOPPED:
            continue
        if state[0] == "D" and _stop_pending(pid):
            continue
        return True
    return False


def _pids(procs: Path) -> list[int]:
    try:
        return [int(p) for p in procs.read_text().split()]
    except (OSError, ValueError):
        return []


def host_sweep(procs: Path, *, keep: set[int], freeze: bool, timeout: float) -> int:
    """SIGSTOP (``freeze``) or SIGCONT every process listed in ``procs`` except ``keep``.

    Freezing repeats until a round finds every thread stopped: a process that
    forks is caught in the round after its child appears, and stopped
    processes cannot fork. A signalled process may take a while to stop on a
    loaded host, so the bound is ``timeout``, not a number of rounds. Returns
    the number of rounds.

    Raises:
        HostFreezeError: no fixpoint within ``timeout``.
    """
    give_up = time.monotonic() + timeout
    rounds = 0
    while True:
        rounds += 1
        busy = False
        for pid in _pids(procs):
            if pid in keep:
                continue
            if not freeze:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGCONT)
                continue
            if _running(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
                    busy = True
        if not freeze or not busy:
            return rounds
        if time.monotonic() > give_up:
            stuck = [_describe(pid) for pid in _pids(procs) if pid not in keep and _running(pid)]
            raise HostFreezeError(
                f"no fixpoint after {rounds} rounds ({timeout:g}s); still running: "
                + ", ".join(stuck[:5])
            )
        time.sleep(0.001 if rounds < 50 else 0.01)


def _describe(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return f"{pid} (gone)"
    name = stat[stat.find("(") + 1 : stat.rfind(")")]
    states = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                states.append((task / "stat").read_text().rsplit(")", 1)[-1].split()[0])
    return f"{pid} {name} [{''.join(states)}]"
