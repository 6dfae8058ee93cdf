"""A hostile exec channel (Docker): the agent replaces the next channel helper with an
impostor (a ``python3`` shim earlier on ``PATH``), kills the running helper, and the
impostor answers the next command with malformed, oversized or endless frames.

Every reply from a sandbox is hostile input: the harness must fail the call with a
typed error, never buffer more than the output cap, and never let it reach the grade.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import pytest

import lhtb
from lhtb.errors import LhtbError

from ._attack import MARK, AttackAgent, run_modes
from .conftest import available, make_backend

pytestmark = [pytest.mark.anyio, pytest.mark.docker]

MAX_GROWTH = 64 * 1024 * 1024
"""How much the harness's resident memory may grow while an attack runs."""

# The impostor: reads the real helper's source (as the bootstrap would), says hello,
# then answers the first command it is given in the way $LHTB_ATK_MODE names.
IMPOSTOR = f"""\
# {MARK}
import json, os, struct, sys
H = struct.Struct(">IIB")
def out(data):
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]
def frame(call, kind, payload=b""):
    out(H.pack(len(payload), call, kind) + payload)
need = int(sys.argv[-1])
while need > 0:
    need -= len(os.read(0, need))
frame(0, 10, json.dumps({{"version": 1, "pid": os.getpid()}}).encode())
buf = b""
while len(buf) < H.size:
    buf += os.read(0, 65536)
length, call, kind = H.unpack_from(buf)
mode = open("/opt/atk/mode").read().strip()
chunk = bytes(256 * 1024)
if mode == "malformed-exit":
    frame(call, 13, b'{{"code": 0}}')
elif mode == "giant-frame":
    out(H.pack(2 * 1024**3, call, 11))
    for _ in range(600 * 4):
        out(chunk)
elif mode == "over-cap":
    for _ in range(100 * 4):
        frame(call, 11, chunk)
elif mode == "stray-frames":
    for n in range(100 * 4):
        frame(10**6 + n, 11, chunk)
frame(call, 13, json.dumps({{"code": 0, "timed_out": False, "stdout_truncated": False,
                            "stderr_truncated": False}}).encode())
"""

SHIM = f"""\
#!/bin/sh
# {MARK}
case "$*" in *lhtb-channel*) exec /usr/bin/python3 /opt/atk/impostor.py "$@" ;; esac
exec /usr/bin/python3 "$@"
"""


class RssWatch:
    """The largest growth of this process's resident memory while the watch runs."""

    def __init__(self) -> None:
        self.start = self._rss()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _rss() -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, self._rss())

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak - self.start


class Impostor(AttackAgent):
    """Installs the impostor, kills the live helper, then runs one command (the impostor
    answers it); records every exception the sandbox raised."""

    answer = "42"
    mode = ""

    def __init__(self) -> None:
        super().__init__()
        self.raised: list[BaseException] = []

    async def setup(self, turn: lhtb.Turn) -> None:
        await turn.sandbox.write_file("/opt/atk/mode", self.mode)
        await turn.sandbox.write_file("/opt/atk/impostor.py", IMPOSTOR)
        await turn.sandbox.write_file("/usr/local/bin/python3", SHIM, mode=0o755)
        with contextlib.suppress(LhtbError):  # kills the helper running this very command
            await turn.sandbox.exec(f"pkill -KILL -x lhtb-channel # {MARK}", timeout=30)
        try:  # the next call starts (and meets) the impostor
            await turn.sandbox.exec("echo still-here", timeout=30)
        except Exception as error:  # what the sandbox raised is the result
            self.raised.append(error)
        # The sandbox stays usable afterwards (the channel is given up, plain exec works).
        result = await turn.sandbox.exec("cat /app/answer.txt", timeout=60)
        assert result.stdout == b"42\n", result


def _impostor(mode: str) -> type[Impostor]:
    return type(f"Impostor_{mode}", (Impostor,), {"mode": mode})


def _typed_and_bounded(watch: RssWatch, typed: bool):  # type: ignore[no-untyped-def]
    def check(episode: lhtb.Episode, agent: AttackAgent, mode: str) -> None:
        del episode, mode
        assert isinstance(agent, Impostor)
        raw = [e for e in agent.raised if not isinstance(e, LhtbError)]
        assert raw == [], f"raw exceptions reached the agent: {raw!r}"
        if typed:
            assert agent.raised, "the impostor's reply was accepted as a result (no typed error)"
        growth = watch.stop()
        assert growth < MAX_GROWTH, f"the harness grew by {growth / 2**20:.0f} MiB"

    return check


@pytest.mark.parametrize(
    ("technique", "mode", "typed"),
    [
        ("channel-malformed-exit", "malformed-exit", True),
        ("channel-giant-frame", "giant-frame", True),
        ("channel-output-over-cap", "over-cap", True),
        ("channel-stray-frames", "stray-frames", False),
    ],
)
async def test_hostile_channel(
    attack_task: lhtb.Task,
    tmp_path: Path,
    run_id: str,
    request: pytest.FixtureRequest,
    technique: str,
    mode: str,
    typed: bool,
) -> None:
    available("docker", request)
    watch = RssWatch()
    await run_modes(
        technique,
        make_backend("docker"),
        attack_task,
        _impostor(mode),
        tmp_path,
        run_id,
        honest=1.0,
        max_passes=1,
        check=_typed_and_bounded(watch, typed),
    )
