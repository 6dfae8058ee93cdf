"""An asyncio event loop on a virtual clock that jumps ahead whenever the loop is idle."""

from __future__ import annotations

import asyncio
import selectors

__all__ = ["VirtualClockLoop", "virtual_clock_backend"]


class _JumpingSelector(selectors.DefaultSelector):
    """Polls instead of waiting: a wait for the next timer becomes a jump of the clock."""

    def __init__(self, loop: VirtualClockLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:  # no timer is pending: only real I/O can wake the loop
            return list(super().select(None))
        ready = list(super().select(0))
        if not ready and timeout > 0:
            self._loop.advance(timeout)
        return ready


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose ``time()`` starts at 0 and moves only when the loop would wait.

    Whenever no callback is ready and no I/O is ready right now, the clock jumps
    straight to the next timer (like trio's ``MockClock(autojump_threshold=0)``):
    ``await anyio.sleep(3600)`` returns at once with an hour gone on the loop's
    clock, and time spent computing never counts. Deadlines, budgets and timeouts
    (``anyio.current_time``, ``move_on_after``, ``asyncio.wait(timeout=...)``)
    become exact and independent of machine load.

    Meant for in-memory tests (e.g. with :class:`~lhtb.testing.FakeBackend`): code
    that waits on sockets, subprocesses or threads while a timer is pending sees
    the clock jump past that timer.
    """

    def __init__(self) -> None:
        self._now = 0.0
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        """The virtual time in seconds."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds`` (never backwards)."""
        self._now += max(0.0, seconds)


def virtual_clock_backend() -> tuple[str, dict[str, object]]:
    """The ``anyio_backend`` value that runs a test on a :class:`VirtualClockLoop`.

    Use it in a pytest module (with anyio's pytest plugin)::

        @pytest.fixture
        def anyio_backend():
            return virtual_clock_backend()

    or outside pytest: ``anyio.run(main, backend="asyncio",
    backend_options={"loop_factory": VirtualClockLoop})``.
    """
    return "asyncio", {"loop_factory": VirtualClockLoop}
