"""CgroupFreezer when the kernel is slow to confirm: a v1 freeze whose threads are all held
(frozen or in a system call, both ``D``; stopped) counts; one with a thread that can still
run does not.

The container's cgroup is a stand-in directory reporting ``FREEZING`` (a host cannot make
a thread stay in a system call on demand); the processes listed in it are real.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lhtb.sandbox.host._freeze import FROZEN_CHILD, CgroupFreezer, HostFreezeError


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(["sleep", "600"])
    yield process
    process.kill()
    process.wait()


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]


def _wait_for_state(pid: int, wanted: set[str]) -> None:
    deadline = time.monotonic() + 60
    while _state(pid) not in wanted:
        assert time.monotonic() < deadline, f"{pid} never reached {wanted}: {_state(pid)}"
        time.sleep(0.01)


def _freezing(tmp_path: Path, version: int, pids: list[int]) -> CgroupFreezer:
    """A freezer whose child lists ``pids`` and never reports FROZEN (v1) or frozen (v2)."""
    child = tmp_path / FROZEN_CHILD
    child.mkdir()
    (child / "cgroup.procs").write_text("".join(f"{pid}\n" for pid in pids))
    (child / "freezer.state").write_text("FREEZING\n")
    (child / "cgroup.events").write_text("populated 1\nfrozen 0\n")
    return CgroupFreezer(version, tmp_path)


def _settle_now(freezer: CgroupFreezer) -> None:
    """The settle step at its timeout (``give_up`` already past)."""
    freezer._settle(frozen=True, give_up=time.monotonic() - 1)


def test_v1_threads_that_cannot_run_user_code_count_as_frozen(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    sleeper.send_signal(signal.SIGSTOP)
    _wait_for_state(sleeper.pid, {"T"})
    freezer = _freezing(tmp_path, 1, [sleeper.pid])
    _settle_now(freezer)  # no HostFreezeError
    (tmp_path / FROZEN_CHILD / "freezer.state").write_text("FROZEN\n")
    assert freezer.is_frozen()


def test_v1_a_thread_that_can_still_run_fails_the_freeze(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    _wait_for_state(sleeper.pid, {"S"})
    with pytest.raises(HostFreezeError, match="did not confirm frozen"):
        _settle_now(_freezing(tmp_path, 1, [sleeper.pid]))


def test_v1_a_cgroup_not_freezing_is_not_held(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    """Stopped threads in a cgroup the freeze was not asked of (THAWED) prove nothing."""
    sleeper.send_signal(signal.SIGSTOP)
    _wait_for_state(sleeper.pid, {"T"})
    freezer = _freezing(tmp_path, 1, [sleeper.pid])
    (tmp_path / FROZEN_CHILD / "freezer.state").write_text("THAWED\n")
    with pytest.raises(HostFreezeError, match="did not confirm frozen"):
        _settle_now(freezer)


def test_v2_only_the_kernels_confirmation_counts(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    """Under v2 a frozen thread sleeps like one the freeze never reached: no fallback."""
    sleeper.send_signal(signal.SIGSTOP)
    _wait_for_state(sleeper.pid, {"T"})
    with pytest.raises(HostFreezeError, match="did not confirm frozen"):
        _settle_now(_freezing(tmp_path, 2, [sleeper.pid]))


def test_a_freeze_the_kernel_never_confirms_is_undone(tmp_path: Path) -> None:
    """Frozen processes ignore SIGKILL: a failed freeze must not leave the cgroup frozen."""
    freezer = _freezing(tmp_path, 2, [])
    (tmp_path / "cgroup.procs").write_text("")
    with pytest.raises(HostFreezeError, match="did not confirm frozen"):
        freezer.freeze(timeout=0)
    assert (tmp_path / FROZEN_CHILD / "cgroup.freeze").read_text() == "0"


def test_a_freeze_that_finds_no_end_is_undone(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    """A process the freeze cannot move (it stays listed) fails it; the cgroup is thawed."""
    freezer = _freezing(tmp_path, 1, [])
    (tmp_path / "cgroup.procs").write_text(f"{sleeper.pid}\n")
    with pytest.raises(HostFreezeError, match="kept appearing"):
        freezer.freeze(timeout=0)
    assert (tmp_path / FROZEN_CHILD / "freezer.state").read_text() == "THAWED"


def test_a_thaw_waits_for_a_freeze_under_way(
    tmp_path: Path, sleeper: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caller that stopped waiting for a freeze (a cancelled task) and thaws must not
    be undone by the freeze still running in its thread."""
    freezer = _freezing(tmp_path, 1, [])
    (tmp_path / "cgroup.procs").write_text(f"{sleeper.pid}\n")  # the freeze loops on it
    writes: list[tuple[str, bool]] = []
    started = threading.Event()
    set_state = CgroupFreezer._set
    me = threading.current_thread()

    def recorded(self: CgroupFreezer, *, frozen: bool) -> None:
        writes.append((threading.current_thread().name, frozen))
        set_state(self, frozen=frozen)
        if threading.current_thread() is me:  # the thaw: let a freeze under way finish
            (tmp_path / "cgroup.procs").write_text("")
        started.set()

    monkeypatch.setattr(CgroupFreezer, "_set", recorded)

    def freeze() -> None:
        with contextlib.suppress(HostFreezeError):  # with the thaw waiting: its timeout
            freezer.freeze(timeout=3)

    worker = threading.Thread(target=freeze, name="freeze")
    worker.start()
    assert started.wait(60), "the freeze began"
    freezer.thaw(timeout=60)
    worker.join(60)
    assert not worker.is_alive()
    assert writes[0] == ("freeze", True)
    assert writes[-1] == (me.name, False), writes  # the thaw came last
    assert (tmp_path / FROZEN_CHILD / "freezer.state").read_text() == "THAWED"
