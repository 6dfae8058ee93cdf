"""Cgroups of local sandboxes: the freezer (agent vs. control), memory and CPU limits,
and PID checks that survive PID reuse.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import attrs

from lhtb.errors import SandboxError

__all__ = ["CONTROL_PID_RESERVE", "Freezer", "Limits", "process_alive", "process_start_time"]

CONTROL_PID_RESERVE = 64
"""Pid slots the init and its control commands (export, shared verification) keep beyond
the agent's limit, where the host nests the agent's pids cgroup (v1): a fork bomb that
fills the agent's budget cannot stop the verifier pass from reading its files."""


@attrs.define
class Freezer:
    """The freezer cgroups of one sandbox: ``agent`` (frozen by :meth:`freeze`) and
    ``ctl`` (the init, and commands started while frozen, so exec keeps working).

    ``version`` is 1 (freezer controller), 2 (``cgroup.freeze``) or 0 (no usable
    cgroup: the init's SIGSTOP sweep is used instead).
    """

    version: int
    base: Path | None

    @classmethod
    def detect(cls, name: str) -> Freezer:
        """The best freezer this host offers to the current user."""
        root = Path("/sys/fs/cgroup")
        candidates: list[tuple[int, Path]] = []
        if (root / "cgroup.controllers").exists():
            candidates.append((2, root / "lhtb" / name))
        if (root / "freezer").is_dir():
            candidates.append((1, root / "freezer" / "lhtb" / name))
        if (root / "unified" / "cgroup.procs").exists():
            candidates.append((2, root / "unified" / "lhtb" / name))
        for version, base in candidates:
            try:
                (base / "agent").mkdir(parents=True, exist_ok=True)
                (base / "ctl").mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            if version == 2 and not (base / "agent" / "cgroup.freeze").exists():
                continue
            return cls(version, base)
        return cls(0, None)

    def procs(self) -> dict[str, str]:
        """``cgroup.procs`` files by role (empty without cgroups)."""
        if self.base is None:
            return {}
        return {role: str(self.base / role / "cgroup.procs") for role in ("agent", "ctl")}

    def set_frozen(self, frozen: bool, *, timeout: float = 30.0) -> None:
        """Freeze or thaw the ``agent`` cgroup and wait until the kernel confirms.

        Raises:
            SandboxError: the state did not settle within ``timeout``.
        """
        assert self.base is not None
        agent = self.base / "agent"
        if self.version == 1:
            control, value, settled = (
                agent / "freezer.state",
                "FROZEN" if frozen else "THAWED",
                None,
            )
        else:
            control, value, settled = agent / "cgroup.freeze", "1" if frozen else "0", None
        control.write_text(value)
        deadline = time.monotonic() + timeout
        pause = 0.0005  # a freeze usually settles within a millisecond: poll fast at first
        while time.monotonic() < deadline:
            if self.version == 1:
                settled = control.read_text().strip() == value
            else:
                events = (agent / "cgroup.events").read_text()
                settled = f"frozen {1 if frozen else 0}" in events
            if settled:
                return
            if self.version == 1 and frozen:
                control.write_text(value)
            time.sleep(pause)
            pause = min(pause * 2, 0.01)
        raise SandboxError(
            f"cgroup {agent} did not become {'frozen' if frozen else 'thawed'}",
            where=str(agent),
            fix="Retry; if it persists, destroy the sandbox",
        )

    def remove(self, *, timeout: float = 10.0) -> None:
        """Thaw and delete the cgroups once their processes are gone."""
        if self.base is None or not self.base.exists():
            return
        with contextlib.suppress(OSError, SandboxError):
            self.set_frozen(False, timeout=2.0)
        deadline = time.monotonic() + timeout
        for role in ("agent", "ctl"):
            directory = self.base / role
            while directory.exists():
                try:
                    directory.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    _kill_all(directory / "cgroup.procs")
                    time.sleep(0.02)
        with contextlib.suppress(OSError):
            self.base.rmdir()


@attrs.define
class Limits:
    """Memory, CPU and process-count cgroups of one sandbox (cgroup v1 or v2).

    Every process of the sandbox inherits them from the init, which joins them
    before it forks; the agent's commands also join ``agent_directories`` (a nested
    pids cgroup, so the init keeps :data:`CONTROL_PID_RESERVE` slots for itself).
    ``enforced`` lists what this host could apply.
    """

    directories: list[Path] = attrs.field(factory=list)
    agent_directories: list[Path] = attrs.field(factory=list)
    enforced: list[str] = attrs.field(factory=list)

    @classmethod
    def apply(cls, name: str, *, cpus: float, memory_mb: int, pids: int) -> Limits:
        """Create the cgroups and write the limits; what cannot be done is skipped."""
        limits = cls()
        root = Path("/sys/fs/cgroup")
        memory = memory_mb * 1024 * 1024
        period = 100_000
        quota = max(1000, int(cpus * period))
        if (root / "cgroup.controllers").exists():
            limits._apply_v2(root, name, memory, quota, period, pids)
            return limits
        memory_dir = root / "memory" / "lhtb" / name
        if limits._make(memory_dir):
            wrote = limits._write(memory_dir / "memory.limit_in_bytes", str(memory))
            limits._write(memory_dir / "memory.memsw.limit_in_bytes", str(memory))
            if wrote:
                limits.enforced.append("memory")
        cpu_dir = root / "cpu" / "lhtb" / name
        if limits._make(cpu_dir):
            limits._write(cpu_dir / "cpu.cfs_period_us", str(period))
            if limits._write(cpu_dir / "cpu.cfs_quota_us", str(quota)):
                limits.enforced.append("cpu")
        pids_dir = root / "pids" / "lhtb" / name
        agent_pids = pids_dir / "agent"
        if (
            limits._make(pids_dir)
            and limits._write(pids_dir / "pids.max", str(pids + CONTROL_PID_RESERVE))
            and limits._make(agent_pids, agent=True)
            and limits._write(agent_pids / "pids.max", str(pids))
        ):
            limits.enforced.append("pids")
        return limits

    def _apply_v2(
        self, root: Path, name: str, memory: int, quota: int, period: int, pids: int
    ) -> None:
        for parent in (root, root / "lhtb"):
            parent.mkdir(exist_ok=True)
            self._write(parent / "cgroup.subtree_control", "+memory +cpu +pids")
        directory = root / "lhtb" / f"{name}-limits"
        if not self._make(directory):
            return
        if self._write(directory / "memory.max", str(memory)):
            self._write(directory / "memory.swap.max", "0")
            self.enforced.append("memory")
        if self._write(directory / "cpu.max", f"{quota} {period}"):
            self.enforced.append("cpu")
        if self._write(directory / "pids.max", str(pids)):
            self.enforced.append("pids")

    def _make(self, directory: Path, *, agent: bool = False) -> bool:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
        (self.agent_directories if agent else self.directories).append(directory)
        return True

    @staticmethod
    def _write(path: Path, value: str) -> bool:
        try:
            path.write_text(value)
        except OSError:
            return False
        return True

    def procs(self) -> list[str]:
        """The ``cgroup.procs`` files the init joins."""
        return [str(d / "cgroup.procs") for d in self.directories]

    def agent_procs(self) -> list[str]:
        """The ``cgroup.procs`` files the agent's commands join after the init forks them."""
        return [str(d / "cgroup.procs") for d in self.agent_directories]

    def agent_pids_counts(self) -> list[list[str]]:
        """``[pids.current, pids.max]`` of the agent's pids cgroups (the init checks them)."""
        return [[str(d / "pids.current"), str(d / "pids.max")] for d in self.agent_directories]

    @staticmethod
    def remove(name: str, *, timeout: float = 10.0) -> None:
        """Delete a sandbox's limit cgroups once their processes are gone."""
        root = Path("/sys/fs/cgroup")
        deadline = time.monotonic() + timeout
        for directory in (
            root / "memory" / "lhtb" / name,
            root / "cpu" / "lhtb" / name,
            root / "pids" / "lhtb" / name / "agent",
            root / "pids" / "lhtb" / name,
            root / "lhtb" / f"{name}-limits",
        ):
            while directory.exists():
                try:
                    directory.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    _kill_all(directory / "cgroup.procs")
                    time.sleep(0.02)


def _kill_all(procs: Path) -> None:
    with contextlib.suppress(OSError):
        for line in procs.read_text().split():
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(line), 9)


def process_alive(pid: int, start_time: str | None) -> bool:
    """True when ``pid`` runs and (if given) started at ``start_time`` (no PID reuse)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] in {"Z", "X"}:
        return False
    return start_time is None or fields[19] == start_time


def process_start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (field 22 of ``/proc/<pid>/stat``)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None
