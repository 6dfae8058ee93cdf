"""Freezing a local container's processes from the host, out of the agent's reach.

The in-container SIGSTOP sweep (:mod:`lhtb.sandbox._scripts`) runs the image's
``sh``: a root agent that replaces ``/bin/sh`` defeats it. When the Docker
daemon is local, the host can see the container's processes itself.

:class:`CgroupFreezer` (preferred; needs write access to the container's
freezer cgroup, v1 or v2): every process of the container, its init
included, is moved into a child cgroup that is frozen *before* the first
process moves in, so each process stops the moment it arrives and nothing
can race the move; the kernel then confirms ``FROZEN`` (on v1, a thread still
in a system call at the timeout is also held: see
:meth:`CgroupFreezer._held_in_kernel`). Commands started
later (the verifier's own ``docker exec``) join the container's cgroup,
outside the frozen child, and run. (Docker's ``pause`` freezes the container's
own cgroup, which would stop the verifier too.)

:func:`host_sweep` (fallback): SIGSTOP from the host, round after round, until
a round sees every listed process stopped and the listing unchanged.

Everything here is blocking; callers run it in a worker thread.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

import attrs

from lhtb._util.log import get_logger

__all__ = [
    "CgroupFreezer",
    "HostFreezeError",
    "cgroup_procs_file",
    "host_sweep",
    "thaw_before_removal",
]

CGROUP_ROOT = Path("/sys/fs/cgroup")
FROZEN_CHILD = "lhtb-frozen"
"""The child of the container's freezer cgroup that holds its processes while frozen."""
_STOPPED = {"T", "t", "Z", "X", "x"}
_HELD = _STOPPED | {"D"}
"""Thread states that cannot run user code in a freezing v1 cgroup (frozen shows as ``D``)."""
_SIGSTOP_BIT = 1 << (signal.SIGSTOP - 1)
log = get_logger(__name__)


class HostFreezeError(Exception):
    """The sweep found no fixpoint."""


@attrs.frozen
class CgroupFreezer:
    """The container's freezer cgroup (``base``) and its frozen child.

    Freezing and thawing through one instance take turns: a thaw waits for a freeze
    still under way (its caller may have stopped waiting for it) instead of racing
    its writes.
    """

    version: int
    base: Path
    _turns: threading.Lock = attrs.field(factory=threading.Lock, init=False, eq=False, repr=False)

    @classmethod
    def find(cls, pid: int, container_id: str, *, root: Path = CGROUP_ROOT) -> CgroupFreezer | None:
        """The freezer of the container whose init is ``pid``; ``None`` when this host
        cannot see or write it (a remote daemon, another namespace, not root)."""
        for version, base in _cgroup_dirs(pid, container_id, root, ("freezer",)):
            control = "freezer.state" if version == 1 else "cgroup.freeze"
            if version == 2 and not (base / control).exists():
                continue
            if str(pid) not in _text(base / "cgroup.procs").split():
                continue
            try:
                (base / FROZEN_CHILD).mkdir(exist_ok=True)
            except OSError:
                continue
            if (base / FROZEN_CHILD / control).exists():
                return cls(version, base)
        return None

    @property
    def child(self) -> Path:
        return self.base / FROZEN_CHILD

    def freeze(self, *, timeout: float) -> int:
        """Freeze every process of the container, init included; returns the rounds of moves.

        A freeze that fails is undone: nothing stays frozen (frozen processes ignore
        SIGKILL, so a container left frozen could not be stopped).

        Raises:
            HostFreezeError: processes kept appearing, or the kernel did not confirm.
        """
        with self._turns:
            try:
                return self._freeze(timeout)
            except BaseException:
                with contextlib.suppress(OSError):
                    self._set(frozen=False)
                raise

    def _freeze(self, timeout: float) -> int:
        give_up = time.monotonic() + timeout
        self._set(frozen=True)  # before anything moves in: arrivals stop at once
        rounds = 0
        while True:
            rounds += 1
            left = [pid for pid in _pids(self.base / "cgroup.procs") if not _zombie(pid)]
            if not left:
                break
            for pid in left:
                with contextlib.suppress(OSError):  # gone meanwhile: nothing to freeze
                    (self.child / "cgroup.procs").write_text(str(pid))
            if time.monotonic() > give_up:
                raise HostFreezeError(
                    f"processes kept appearing outside the frozen cgroup after {rounds} "
                    f"rounds ({timeout:g}s): " + ", ".join(_describe(p) for p in left[:5])
                )
        self._settle(frozen=True, give_up=give_up)
        return rounds

    def thaw(self, *, timeout: float) -> None:
        """Let the frozen processes run again (they stay in the child cgroup)."""
        with self._turns:
            self._set(frozen=False)
            self._settle(frozen=False, give_up=time.monotonic() + timeout)

    def _set(self, *, frozen: bool) -> None:
        if self.version == 1:
            (self.child / "freezer.state").write_text("FROZEN" if frozen else "THAWED")
        else:
            (self.child / "cgroup.freeze").write_text("1" if frozen else "0")

    def is_frozen(self) -> bool:
        """What the kernel reports: every process in the child is frozen."""
        if self.version == 1:
            return _text(self.child / "freezer.state").strip() == "FROZEN"
        return "frozen 1" in _text(self.child / "cgroup.events").splitlines()

    def _settle(self, *, frozen: bool, give_up: float) -> None:
        while self.is_frozen() != frozen:
            if time.monotonic() > give_up:
                if frozen and self._held_in_kernel():
                    return
                held = [_describe(pid) for pid in _pids(self.child / "cgroup.procs")]
                raise HostFreezeError(
                    f"the kernel did not confirm {'frozen' if frozen else 'thawed'} "
                    f"for {self.child} (threads: {', '.join(held[:5]) or 'none'})"
                )
            if frozen and self.version == 1:
                self._set(frozen=True)  # v1 retries stubborn tasks on each write
            time.sleep(0.005)

    def _held_in_kernel(self) -> bool:
        """v1 only: every thread of the child is frozen or in uninterruptible sleep (both
        ``D``), stopped, or dead, so none can run user code before the thaw.

        A busy host may keep a thread in a system call (disk I/O, memory reclaim)
        past the timeout, and the kernel confirms ``FROZEN`` only once it is back.
        In a ``FREEZING`` v1 cgroup a thread cannot return to user space without
        entering the freezer (the kernel keeps its signal flag set), so it finishes
        that system call and stops: the same bound as :func:`host_sweep` sets for a
        ``D`` thread with SIGSTOP pending. A thread in any other state (running,
        or an interruptible sleep the freeze should have ended) fails the check.
        Under v2 a frozen thread sleeps interruptibly (``S``), like a thread the
        freeze never reached, so only the kernel's confirmation counts there.
        """
        if self.version != 1 or _text(self.child / "freezer.state").strip() != "FREEZING":
            return False
        states = [_thread_states(pid) for pid in _pids(self.child / "cgroup.procs")]
        held = all(state in _HELD for threads in states for state in threads)
        if held:
            log.warning(
                "sandbox_freeze_held_in_kernel",
                cgroup=str(self.child),
                threads=sum(len(threads) for threads in states),
            )
        return held


def thaw_before_removal(pid: int, container_id: str, *, root: Path = CGROUP_ROOT) -> None:
    """Thaw the frozen child of the container whose init is ``pid``, if any: frozen
    processes do not die of SIGKILL, so the daemon could not stop the container."""
    for version, base in _cgroup_dirs(pid, container_id, root, ("freezer",)):
        with contextlib.suppress(OSError):
            CgroupFreezer(version, base)._set(frozen=False)


def _cgroup_dirs(
    pid: int, container_id: str, root: Path, controllers: tuple[str, ...]
) -> list[tuple[int, Path]]:
    """(version, directory) of each cgroup of ``pid`` that belongs to the container."""
    found: list[tuple[int, Path]] = []
    for line in _text(Path(f"/proc/{pid}/cgroup")).splitlines():
        _, names, path = line.split(":", 2)
        if container_id not in path:
            continue  # not this container's cgroup (e.g. we are in another namespace)
        relative = path.lstrip("/").removesuffix(f"/{FROZEN_CHILD}")  # frozen before
        if names == "":
            found += [(2, root / relative), (2, root / "unified" / relative)]
        for name in controllers:
            if name in names.split(","):
                found.append((1, root / names / relative))
    return found


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _zombie(pid: int) -> bool:
    """Exited but not reaped (its parent may be frozen): it can never run again."""
    stat = _text(Path(f"/proc/{pid}/stat"))
    return not stat or stat.rsplit(")", 1)[-1].split()[0:1] in (["Z"], ["X"])


def cgroup_procs_file(pid: int, container_id: str, *, root: Path = CGROUP_ROOT) -> Path | None:
    """The ``cgroup.procs`` listing every process of the container whose init is ``pid``.

    ``None`` when this host cannot see the container (a remote daemon, another
    PID namespace, an unreadable or unknown cgroup layout): callers then fall
    back to the in-container sweep.
    """
    for _, candidate in _cgroup_dirs(pid, container_id, root, _SWEEP_CONTROLLERS):
        procs = candidate / "cgroup.procs"
        if str(pid) in _text(procs).split():
            return procs
    return None


_SWEEP_CONTROLLERS = ("pids", "freezer", "cpuacct", "memory")


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

    Freezing repeats until a round finds every thread stopped *and* the listing
    unchanged from the round's start: a process that forks is caught in the
    round after its child appears, a process that forked and exited between
    listing and checking makes the round dirty, and stopped processes cannot
    fork. A signalled process may take a while to stop on a loaded host, so the
    bound is ``timeout``, not a number of rounds. Returns the number of rounds.

    A freeze that finds no fixpoint continues every process before raising.

    Raises:
        HostFreezeError: no fixpoint within ``timeout``.
    """
    give_up = time.monotonic() + timeout
    rounds = 0
    while True:
        rounds += 1
        busy = False
        listed = _pids(procs)
        for pid in listed:
            if pid in keep:
                continue
            if not freeze:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGCONT)
                continue
            running = _running(pid)
            if running is None:  # gone since the listing: it may have left children
                busy = True
            elif running:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
                busy = True
        if not freeze or not (busy or set(_pids(procs)) != set(listed)):
            return rounds
        if time.monotonic() > give_up:
            stuck = [_describe(pid) for pid in _pids(procs) if pid not in keep and _running(pid)]
            host_sweep(procs, keep=keep, freeze=False, timeout=timeout)  # nothing stays stopped
            raise HostFreezeError(
                f"no fixpoint after {rounds} rounds ({timeout:g}s); still running: "
                + ", ".join(stuck[:5])
            )
        time.sleep(0.001 if rounds < 50 else 0.01)


def _thread_states(pid: int) -> list[str]:
    """The state letter of each thread of ``pid`` (empty when it is gone)."""
    states = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, IndexError):
                states.append((task / "stat").read_text().rsplit(")", 1)[-1].split()[0])
    return states


def _describe(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return f"{pid} (gone)"
    name = stat[stat.find("(") + 1 : stat.rfind(")")]
    return f"{pid} {name} [{''.join(_thread_states(pid))}]"
