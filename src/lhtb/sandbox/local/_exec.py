"""The host side of one request to a local sandbox's init (blocking; run in a thread).

An exec passes pipes for stdin/stdout/stderr to the init as file descriptors,
then reads output straight from the pipes (no relay through the init) while
waiting for the exit message. At most ``output_limit`` bytes per stream are
kept; the rest is drained. Closing the control connection makes the init kill
the command's process group, which is how host-side deadlines and
cancellation stop commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import struct
import threading
import time
from collections.abc import Sequence
from typing import Any

import attrs

__all__ = ["InitError", "RawExec", "request", "run_exec", "start_tty"]

_HEADER = struct.Struct(">I")
_READ_CHUNK = 256 * 1024
_CONNECT_TIMEOUT = 10.0


class InitError(Exception):
    """The init refused a request or could not be reached; ``start_failure`` when the
    command itself could not be started (unknown user, missing cwd or executable)."""

    def __init__(self, message: str, *, start_failure: bool = False) -> None:
        super().__init__(message)
        self.start_failure = start_failure


@attrs.frozen
class RawExec:
    exit_code: int
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool
    duration_sec: float


class _Capped:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0
        self.truncated = False

    def add(self, data: bytes) -> None:
        room = self.limit - self.size
        if len(data) > room:
            self.truncated = True
            data = data[: max(room, 0)]
        if data:
            self.parts.append(data)
            self.size += len(data)

    def value(self) -> bytes:
        return b"".join(self.parts)


def _connect(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(_CONNECT_TIMEOUT)
    try:
        sock.connect(path)
    except OSError as error:
        sock.close()
        raise InitError(f"cannot reach the sandbox init at {path} ({error})") from error
    return sock


def _send(sock: socket.socket, message: dict[str, Any], fds: Sequence[int] = ()) -> None:
    data = json.dumps(message).encode()
    socket.send_fds(sock, [_HEADER.pack(len(data))], list(fds))
    sock.sendall(data)


class _Reader:
    """Length-prefixed JSON messages from a (non-blocking) socket."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self.buffer += data
        messages = []
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + size:
                break
            messages.append(json.loads(self.buffer[_HEADER.size : _HEADER.size + size]))
            self.buffer = self.buffer[_HEADER.size + size :]
        return messages


def request(path: str, message: dict[str, Any], *, timeout: float) -> dict[str, Any]:
    """Send one control request (ping, freeze, thaw) and return the reply."""
    sock = _connect(path)
    try:
        sock.settimeout(timeout)
        _send(sock, message)
        reader = _Reader()
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                raise InitError("the sandbox init closed the connection")
            replies = reader.feed(chunk)
            if replies:
                return replies[0]
    finally:
        sock.close()


def start_tty(path: str, message: dict[str, Any], slave: int, *, timeout: float) -> socket.socket:
    """Start a command on the pseudo-terminal ``slave``; return the open control socket.

    Closing the socket makes the init kill the command's session.

    Raises:
        InitError: the init is unreachable, or the command could not start.
    """
    sock = _connect(path)
    try:
        sock.settimeout(timeout)
        _send(sock, {**message, "tty": True, "has_stdin": True}, [slave])
        reader = _Reader()
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                raise InitError("the sandbox init closed the connection")  # noqa: TRY301
            for reply in reader.feed(chunk):
                if "error" in reply:
                    raise InitError(str(reply["error"]), start_failure=True)  # noqa: TRY301
                if "pid" in reply:
                    sock.settimeout(None)
                    return sock
    except BaseException:
        sock.close()
        raise


def run_exec(  # noqa: PLR0915 - one select loop over four descriptors
    path: str,
    message: dict[str, Any],
    *,
    stdin: bytes | None,
    output_limit: int,
    host_timeout: float | None,
    cancelled: threading.Event,
) -> RawExec:
    """Run one exec request and collect its output.

    Raises:
        InitError: the init is unreachable, or the command could not start.
    """
    started = time.monotonic()
    deadline = None if host_timeout is None else started + host_timeout
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r = in_w = -1
    if stdin is not None:
        in_r, in_w = os.pipe()
    sock = _connect(path)
    try:
        fds = [in_r, out_w, err_w] if stdin is not None else [out_w, err_w]
        _send(sock, {**message, "has_stdin": stdin is not None}, fds)
    except OSError as error:
        for fd in (out_r, out_w, err_r, err_w, in_r, in_w):
            if fd >= 0:
                os.close(fd)
        sock.close()
        raise InitError(f"cannot send the request to the sandbox init ({error})") from error
    for fd in (out_w, err_w, in_r):
        if fd >= 0:
            os.close(fd)
    out, err = _Capped(output_limit), _Capped(output_limit)
    reader = _Reader()
    exit_message: dict[str, Any] | None = None
    host_timed_out = False
    selector = selectors.DefaultSelector()
    pending_in = memoryview(stdin or b"")
    try:
        for fd in (out_r, err_r):
            os.set_blocking(fd, False)
        sock.setblocking(False)
        selector.register(out_r, selectors.EVENT_READ, out)
        selector.register(err_r, selectors.EVENT_READ, err)
        selector.register(sock, selectors.EVENT_READ, "control")
        if in_w >= 0:
            os.set_blocking(in_w, False)
            if pending_in:
                selector.register(in_w, selectors.EVENT_WRITE, "stdin")
            else:
                os.close(in_w)
                in_w = -1
        open_streams = 2
        while open_streams > 0 or exit_message is None:
            if exit_message is not None:
                # The command is gone; whatever it wrote is in the pipes now.
                # Background processes may keep them open: drain, don't wait.
                _drain(out_r, out)
                _drain(err_r, err)
                break
            if cancelled.is_set():
                break
            wait = 0.5
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    host_timed_out = True
                    break
                wait = min(wait, remaining)
            for key, _ in selector.select(wait):
                if key.data == "control":
                    chunk = _recv(sock)
                    if chunk is None:
                        continue
                    if not chunk:
                        exit_message = exit_message or {"error": "the sandbox init went away"}
                        continue
                    for reply in reader.feed(chunk):
                        if "error" in reply:
                            raise InitError(str(reply["error"]), start_failure=True)
                        if "exit" in reply:
                            exit_message = reply
                elif key.data == "stdin":
                    try:
                        written = os.write(in_w, pending_in[:65536])
                        pending_in = pending_in[written:]
                    except BlockingIOError:
                        continue
                    except OSError:
                        pending_in = memoryview(b"")
                    if not pending_in:
                        selector.unregister(in_w)
                        os.close(in_w)
                        in_w = -1
                else:
                    fd = key.fd
                    try:
                        data = os.read(fd, _READ_CHUNK)
                    except BlockingIOError:
                        continue
                    if data:
                        key.data.add(data)
                    else:
                        selector.unregister(fd)
                        open_streams -= 1
    finally:
        selector.close()
        sock.close()
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
    if exit_message is not None and "error" in exit_message:
        raise InitError(str(exit_message["error"]))
    timed_out = host_timed_out or bool(exit_message and exit_message.get("timed_out"))
    code = -1 if exit_message is None else int(exit_message["exit"])
    return RawExec(
        exit_code=code,
        stdout=out.value(),
        stderr=err.value(),
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        timed_out=timed_out,
        duration_sec=time.monotonic() - started,
    )


def _recv(sock: socket.socket) -> bytes | None:
    """Data, ``b""`` at EOF, or None when nothing was ready after all."""
    try:
        return sock.recv(65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _drain(fd: int, sink: _Capped) -> None:
    while True:
        try:
            data = os.read(fd, _READ_CHUNK)
        except (BlockingIOError, OSError):
            return
        if not data:
            return
        sink.add(data)
