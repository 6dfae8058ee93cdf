"""The host end of the exec channel: one long-lived helper per Docker sandbox.

A plain ``docker exec`` costs an Engine round trip and a process spawn in the
daemon per command (~70 ms). The channel starts one helper
(:mod:`lhtb.sandbox.docker._channel_helper`, stdlib Python) in the container through a
single exec with stdin attached, then sends every command to it as frames over
that stream: a few milliseconds per command, many in flight at once.

Frames, both ways: ``>IIB`` (payload length, request id, type) then the payload;
see the helper's docstring for the types. The Engine wraps the helper's output
in its own stream framing (``tty=False``); :class:`ExecChannel` removes it.

Trust: the agent can kill, stop or replace the helper (it often is root: no
path in the container is out of its reach, so starting ``/usr/bin/python3``
instead of ``python3`` would not help). The channel is therefore only a faster
way to run commands that could run anyway, and every byte it returns is
hostile input: frames are bounded (:data:`MAX_FRAME_BYTES`), a command's output
may not exceed its cap, and EXIT/FAIL/HELLO payloads are validated. A helper
that breaks any of this is dropped and the channel disabled for the sandbox
(calls in flight fail with :class:`ChannelBrokenError`). Otherwise,
:class:`ChannelManager` falls back to the plain exec path when the image has no
working ``python3``, restarts a helper that died (failing the calls that were in
flight with a :class:`~lhtb.errors.SandboxError`), and is suspended (the helper
stopped) before any freeze so that verification, and every harness control
operation after it, uses the plain path and never meets the helper.

Blocking socket I/O runs in two threads per channel (a reader and a writer);
results return to the caller's event loop through its anyio token.
"""

from __future__ import annotations

import contextlib
import json
import queue
import struct
import threading
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import attrs

from lhtb._util.log import get_logger
from lhtb.errors import ExecError, SandboxError
from lhtb.sandbox.base import ExecResult
from lhtb.sandbox.docker._exec import _HEADER as _ENGINE_HEADER
from lhtb.sandbox.docker._exec import _open_stream

__all__ = [
    "DEFAULT_CHANNEL_SETTINGS",
    "READ_SCRIPT",
    "ChannelBrokenError",
    "ChannelManager",
    "ChannelSettings",
    "ExecChannel",
]

log = get_logger(__name__)

FRAME = struct.Struct(">IIB")
START, STDIN, STDIN_EOF, KILL = 1, 2, 3, 4
HELLO, STDOUT, STDERR, EXIT, FAIL = 10, 11, 12, 13, 14
PROTOCOL_VERSION = 1
_STDIN_CHUNK = 1024 * 1024
_READ_CHUNK = 256 * 1024
MAX_FRAME_BYTES = 1024 * 1024
"""Largest frame payload accepted from the helper (it sends at most 256 KiB)."""

BOOTSTRAP = (
    "import os,sys\n"
    "a=getattr(sys,'orig_argv',None)\n"
    "if a and a[0]!='lhtb-channel' and sys.executable:\n"
    " try:os.execv(sys.executable,['lhtb-channel']+a[1:])\n"
    " except OSError:pass\n"
    "n=int(sys.argv[1]);b=b''\n"
    "while len(b)<n:\n"
    " c=os.read(0,n-len(b))\n"
    " if not c:raise SystemExit(3)\n"
    " b+=c\n"
    "exec(compile(b,'lhtb-channel','exec'),{'__name__':'__main__'})\n"
)
"""Run by ``python3 -I -S -c``: re-exec as ``lhtb-channel`` (so that ``pkill -f python``
in the sandbox does not match it), read the helper's source from stdin, run it."""


def helper_source() -> bytes:
    """The helper program sent to the container (read from the installed package)."""
    return resources.files("lhtb.sandbox.docker").joinpath("_channel_helper.py").read_bytes()


@attrs.frozen
class ChannelSettings:
    """How the exec channel starts, waits and gives up."""

    start_timeout_sec: float = 15.0
    """How long a new helper may take to say hello before the sandbox falls back."""
    stop_timeout_sec: float = 2.0
    """How long a stopping helper may take to exit before it is killed."""
    drain_grace_sec: float = 0.5
    """After a command exits, how long background processes holding its output are awaited."""
    max_restarts: int = 5
    """Helper restarts per sandbox before it falls back to plain exec for good."""
    max_in_flight: int = 256
    """Commands one sandbox's helper runs at once; more wait their turn (each running
    command holds a few of the container's ``pids_limit``)."""
    file_channel_max_bytes: int = 8 * 1024 * 1024
    """Root file reads/writes up to this size go through the channel, bigger ones through
    the Engine's archive API (measured crossover, see ``docs/performance.md``)."""


DEFAULT_CHANNEL_SETTINGS = ChannelSettings()


class ChannelBrokenError(SandboxError):
    """The helper died or the stream broke; calls in flight failed with this."""


class ChannelProtocolError(ValueError):
    """The helper sent something the protocol does not allow (it was replaced, or broke)."""


class _Capped:
    """One stream's output; the helper truncates at the cap itself, so more is hostile."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> None:
        if self.size + len(data) > self.limit:
            raise ChannelProtocolError(f"more output than the cap of {self.limit} bytes")
        self.parts.append(data)
        self.size += len(data)


class _Call:
    def __init__(self, limit: int) -> None:
        self.token = anyio.lowlevel.current_token()
        self.event = anyio.Event()
        self.out = _Capped(limit)
        self.err = _Capped(limit)
        self.exit: _ExitInfo | None = None
        self.fail: str | None = None
        self.broken: str | None = None


class ExecChannel:
    """One helper process in one container, and the two threads that talk to it."""

    def __init__(self, api: Any, container_id: str, where: str, settings: ChannelSettings):
        self._api = api
        self._container = container_id
        self._where = where
        self._settings = settings
        self._calls: dict[int, _Call] = {}
        self._lock = threading.Lock()
        self._next_id = 1
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._hello = threading.Event()
        self._closed = threading.Event()
        self.dead: str | None = None
        self.hostile = False
        """The helper broke the protocol: do not start another one in this sandbox."""
        self.helper_pid: int | None = None
        self._stderr = b""
        self._response: Any = None
        self._sock: Any = None

    # -- lifecycle (blocking; run in a worker thread) ----------------------------------------

    def start_sync(self) -> bool:
        """Start the helper and wait for its hello. False when it cannot run here."""
        source = helper_source()
        created = self._api.exec_create(
            self._container,
            ["python3", "-I", "-S", "-c", BOOTSTRAP, str(len(source))],
            stdin=True,
            stdout=True,
            stderr=True,
            tty=False,
            user="0",
        )
        self._response, reader, self._sock = _open_stream(self._api, created["Id"])
        # The stream stays quiet while commands run without output: no read timeout (the
        # Engine API's would break the channel after api_timeout_sec of silence). The
        # channel ends on EOF, on close(), or when the container goes.
        self._sock.settimeout(None)
        threading.Thread(target=self._read_loop, args=(reader,), daemon=True).start()
        threading.Thread(target=self._write_loop, daemon=True).start()
        self._outbox.put(source)
        if self._hello.wait(self._settings.start_timeout_sec) and self.dead is None:
            return True
        detail = self._stderr.decode(errors="replace").strip()[-300:]
        log.info("exec_channel_unavailable", where=self._where, reason=self.dead, stderr=detail)
        self.close()
        return False

    def close(self) -> None:
        """Close stdin (the helper exits on EOF) and release the stream. Safe to call twice."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._outbox.put(None)

    def wait_closed(self, timeout: float) -> bool:
        """Wait until the helper's stream ended (the helper exited)."""
        give_up = time.monotonic() + timeout
        while self.dead is None:
            if time.monotonic() > give_up:
                return False
            time.sleep(0.01)
        return True

    def _write_loop(self) -> None:
        while True:
            data = self._outbox.get()
            if data is None:
                with contextlib.suppress(OSError):
                    self._sock.shutdown(1)  # SHUT_WR: the helper sees EOF and exits
                return
            try:
                self._sock.sendall(data)
            except OSError as error:
                self._die(f"cannot write to the helper ({error})")
                return

    def _read_loop(self, reader: Any) -> None:
        engine = bytearray()  # the Engine's stream frames, as read
        frames = bytearray()  # the helper's frames, unwrapped
        reason = "the helper exited"
        try:
            while True:
                chunk = reader.read1(_READ_CHUNK)
                if not chunk:
                    break
                engine += chunk
                used = 0
                while len(engine) - used >= _ENGINE_HEADER.size:
                    stream, length = _ENGINE_HEADER.unpack_from(engine, used)
                    end = used + _ENGINE_HEADER.size + length
                    if len(engine) < end:
                        break
                    if stream == 2:
                        tail = bytes(engine[end - length : end])
                        self._stderr = (self._stderr + tail)[-4096:]
                    else:
                        frames += memoryview(engine)[end - length : end]
                    used = end
                del engine[:used]
                self._parse(frames)
        except ChannelProtocolError as error:
            self.hostile = True
            reason = f"the helper broke the channel protocol ({error})"
        except Exception as error:  # any failure ends the channel
            reason = f"the stream to the helper broke ({error})"
        self._die(reason)
        with contextlib.suppress(Exception):
            self._response.close()
        with contextlib.suppress(OSError):
            self._sock.close()

    def _parse(self, frames: bytearray) -> None:
        used = 0
        while len(frames) - used >= FRAME.size:
            length, call_id, kind = FRAME.unpack_from(frames, used)
            if length > MAX_FRAME_BYTES:
                raise ChannelProtocolError(f"a frame of {length} bytes")
            end = used + FRAME.size + length
            if len(frames) < end:
                break
            payload = bytes(frames[end - length : end])
            used = end
            self._handle(call_id, kind, payload)
        del frames[:used]

    def _handle(self, call_id: int, kind: int, payload: bytes) -> None:
        if kind == HELLO:
            hello = _json_object(payload, "HELLO")
            if hello.get("version") != PROTOCOL_VERSION:
                raise ChannelProtocolError(f"helper speaks protocol {hello.get('version')!r}")
            self.helper_pid = _field(hello, "pid", int, "HELLO")
            self._hello.set()
            return
        with self._lock:
            call = self._calls.get(call_id)
        if call is None:
            return  # an abandoned call: its output is dropped
        if kind == STDOUT:
            call.out.add(payload)
        elif kind == STDERR:
            call.err.add(payload)
        elif kind in (EXIT, FAIL):
            if kind == EXIT:
                call.exit = _exit_info(payload)
            else:
                call.fail = _field(_json_object(payload, "FAIL"), "message", str, "FAIL")[:2000]
            with self._lock:
                self._calls.pop(call_id, None)
            _wake(call)
        else:
            raise ChannelProtocolError(f"unknown frame type {kind}")

    def _die(self, reason: str) -> None:
        with self._lock:
            if self.dead is None:
                self.dead = reason
            calls = list(self._calls.values())
            self._calls.clear()
        self._closed.set()
        self._hello.set()
        self._outbox.put(None)
        for call in calls:
            call.broken = reason
            _wake(call)

    # -- calls (async) ------------------------------------------------------------------------

    async def run(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None,
        user: str,
        cwd: str | None,
        env: Mapping[str, str] | None,
        timeout: float | None,
        output_limit: int,
        host_timeout: float | None,
    ) -> ExecResult:
        """Run one command through the helper.

        Raises:
            ChannelBrokenError: the helper died (or was killed) before answering.
            ExecError: the command could not start (user, cwd or executable missing).
        """
        call = _Call(output_limit)
        request = {
            "argv": list(argv),
            "cwd": cwd,
            "env": dict(env) if env else None,
            "user": user,
            "timeout": timeout,
            "limit": output_limit,
            "stdin": stdin is not None,
            "grace": self._settings.drain_grace_sec,
        }
        with self._lock:
            if self.dead is not None or self._closed.is_set():
                raise ChannelBrokenError(f"exec channel closed: {self.dead}", where=self._where)
            call_id = self._next_id
            self._next_id += 1
            self._calls[call_id] = call
        started = time.monotonic()
        self._outbox.put(_frame(call_id, START, json.dumps(request).encode()))
        if stdin is not None:
            for offset in range(0, len(stdin), _STDIN_CHUNK):
                self._outbox.put(_frame(call_id, STDIN, stdin[offset : offset + _STDIN_CHUNK]))
            self._outbox.put(_frame(call_id, STDIN_EOF))
        try:
            with anyio.move_on_after(host_timeout):  # None: no host-side deadline
                await call.event.wait()
        finally:
            if not call.event.is_set():  # cancelled or past the host deadline: let it go
                with self._lock:
                    self._calls.pop(call_id, None)
        if not call.event.is_set():
            self._outbox.put(_frame(call_id, KILL))
            log.warning("exec_host_deadline", where=self._where, argv=list(argv)[:6])
            return _result(call, -1, timed_out=True, started=started)
        if call.broken is not None:
            raise ChannelBrokenError(
                f"the exec channel's helper stopped while the command ran ({call.broken}); "
                "the command's outcome is unknown",
                where=self._where,
                fix="Retry the command: the helper is restarted on the next call. "
                "Do not kill the lhtb-channel python3 process in the sandbox",
            )
        if call.fail is not None:
            raise ExecError(
                f"command could not start: {call.fail}",
                where=self._where,
                fix="Check the user, working directory and executable exist in the image",
            )
        assert call.exit is not None
        return _result(call, call.exit.code, timed_out=call.exit.timed_out, started=started)


@attrs.frozen
class _ExitInfo:
    code: int
    timed_out: bool
    stdout_truncated: bool
    stderr_truncated: bool


_EXIT_FLAGS = ("timed_out", "stdout_truncated", "stderr_truncated")


def _json_object(payload: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(payload)
    except ValueError as error:
        raise ChannelProtocolError(f"{what} is not JSON ({error})") from None
    if not isinstance(value, dict):
        raise ChannelProtocolError(f"{what} is not a JSON object")
    return value


def _field(value: Mapping[str, Any], name: str, kind: type[Any], what: str) -> Any:
    item = value.get(name)
    if not isinstance(item, kind) or (kind is int and isinstance(item, bool)):
        raise ChannelProtocolError(f"{what} field {name!r} is not a {kind.__name__}: {item!r}")
    return item


def _exit_info(payload: bytes) -> _ExitInfo:
    """The validated EXIT payload (the helper may be an impostor)."""
    value = _json_object(payload, "EXIT")
    code = _field(value, "code", int, "EXIT")
    if not 0 <= code <= 255:
        raise ChannelProtocolError(f"EXIT code {code} is out of range")
    flags = [_field(value, name, bool, "EXIT") for name in _EXIT_FLAGS]
    return _ExitInfo(code, *flags)


def _result(call: _Call, code: int, *, timed_out: bool, started: float) -> ExecResult:
    exit_info = call.exit
    return ExecResult(
        exit_code=code,
        stdout=b"".join(call.out.parts),
        stderr=b"".join(call.err.parts),
        stdout_truncated=exit_info is not None and exit_info.stdout_truncated,
        stderr_truncated=exit_info is not None and exit_info.stderr_truncated,
        timed_out=timed_out,
        duration_sec=time.monotonic() - started,
    )


def _frame(call_id: int, kind: int, payload: bytes = b"") -> bytes:
    return FRAME.pack(len(payload), call_id, kind) + payload


def _wake(call: _Call) -> None:
    with contextlib.suppress(Exception):  # the caller's event loop may be gone
        anyio.from_thread.run_sync(call.event.set, token=call.token)


class ChannelManager:
    """Per-sandbox channel state: the live helper, the fallback decision, suspension.

    :meth:`run` returns ``None`` when the caller must use the plain exec path:
    the channel is disabled, the image cannot run the helper (decided once and
    cached), it is suspended for a freeze, or it was restarted too often.
    """

    def __init__(
        self, api: Any, container_id: str, where: str, settings: ChannelSettings, *, enabled: bool
    ) -> None:
        self._api = api
        self._container = container_id
        self._where = where
        self.settings = settings
        self.available: bool | None = None if enabled else False
        """None: not tried yet; False: plain exec for good; True: the helper runs."""
        self.suspended = False
        self.restarts = 0
        self._channel: ExecChannel | None = None
        self._start_lock = anyio.Lock()
        self._limiter = anyio.CapacityLimiter(settings.max_in_flight)

    @property
    def active(self) -> bool:
        """Whether the next call goes through the channel (as far as is known)."""
        return self.available is not False and not self.suspended

    async def _get(self) -> ExecChannel | None:
        channel = self._channel
        if channel is not None and channel.dead is None:
            return channel
        async with self._start_lock:
            if self.suspended or self.available is False:
                return None
            channel = self._channel
            if channel is not None and channel.dead is None:
                return channel
            if channel is not None and channel.hostile:  # an impostor: never again here
                log.warning("exec_channel_disabled", where=self._where, reason=channel.dead)
                self.available = False
                self._channel = None
                return None
            if channel is not None:  # it died: restart it, within reason
                self.restarts += 1
                log.warning(
                    "exec_channel_restart",
                    where=self._where,
                    reason=channel.dead,
                    restarts=self.restarts,
                )
                if self.restarts > self.settings.max_restarts:
                    self.available = False
                    self._channel = None
                    return None
            fresh = ExecChannel(self._api, self._container, self._where, self.settings)
            started = time.monotonic()
            # Not abandoned on cancel: a helper started by nobody's channel would linger.
            ok = await anyio.to_thread.run_sync(fresh.start_sync)
            if not ok:
                self.available = False
                self._channel = None
                return None
            log.debug(
                "exec_channel_started",
                where=self._where,
                pid=fresh.helper_pid,
                seconds=time.monotonic() - started,
            )
            self.available = True
            self._channel = fresh
            return fresh

    async def run(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None,
        user: str,
        cwd: str | None,
        env: Mapping[str, str] | None,
        timeout: float | None,
        output_limit: int,
        host_timeout: float | None,
    ) -> ExecResult | None:
        """Run a command through the channel, or return None to ask for the plain path.

        Raises:
            ChannelBrokenError: the helper died while the command ran.
            ExecError: the command could not start.
        """
        if not self.active:
            return None
        channel = await self._get()
        if channel is None:
            return None
        async with self._limiter:
            return await channel.run(
                argv,
                stdin=stdin,
                user=user,
                cwd=cwd,
                env=env,
                timeout=timeout,
                output_limit=output_limit,
                host_timeout=host_timeout,
            )

    async def suspend(self, kill: Any) -> None:
        """Stop the helper and send every call to the plain path until :meth:`resume`.

        ``kill(pid)`` is awaited when the helper does not exit on EOF (it was
        stopped by the agent, say); it must use the plain path. Never raises.
        """
        self.suspended = True
        async with self._start_lock:
            channel, self._channel = self._channel, None
        if channel is None:
            return
        try:
            channel.close()
            stopped = await anyio.to_thread.run_sync(
                channel.wait_closed, self.settings.stop_timeout_sec, abandon_on_cancel=True
            )
            if not stopped and channel.helper_pid is not None:
                await kill(channel.helper_pid)
        except Exception as error:  # a freeze must not fail on the helper
            log.warning("exec_channel_stop_failed", where=self._where, error=str(error))

    def resume(self) -> None:
        """Let calls use the channel again (a new helper starts on the next call)."""
        self.suspended = False

    def shutdown(self) -> None:
        """Close the helper without waiting (the sandbox is going away)."""
        self.available = False
        if self._channel is not None:
            self._channel.close()
            self._channel = None


READ_SCRIPT = """
[ -d "$1" ] && exit 4
exec head -c "$2" -- "$1"
"""
"""``$1`` = path, ``$2`` = most bytes to read (one more than the channel's file cap)."""
