"""One ``docker exec`` over the Engine API: stdin in, demultiplexed output out.

Blocking code, meant to run in a worker thread. It speaks the hijacked-stream
protocol directly (``POST /exec/{id}/start`` with ``Upgrade: tcp``) so that it
can write stdin from a second thread while reading, half-close stdin, bound
every read by a deadline, and keep at most ``output_limit`` bytes per stream
while draining the rest. The docker SDK is untyped; ``Any`` stays in here.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

__all__ = ["RawExec", "run_exec"]

_HEADER = struct.Struct(">BxxxL")
_READ_CHUNK = 256 * 1024
_EXIT_POLL_SEC = 5.0


@attrs.frozen
class RawExec:
    """What the Engine reported for one exec, before any interpretation."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    host_timed_out: bool
    duration_sec: float


class _Capped:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0
        self.truncated = False

    def add(self, data: bytes) -> None:
        room = self.limit - self.size
        if room <= 0:
            self.truncated = self.truncated or bool(data)
            return
        if len(data) > room:
            data = data[:room]
            self.truncated = True
        self.parts.append(data)
        self.size += len(data)

    def value(self) -> bytes:
        return b"".join(self.parts)


def _write_stdin(sock: socket.socket, data: bytes) -> None:
    # The command may exit without reading its input: a broken pipe is not an error.
    with contextlib.suppress(OSError):
        sock.sendall(data)
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)


def _open_stream(api: Any, exec_id: str) -> tuple[Any, Any, socket.socket]:
    """Start the exec and return (response, buffered reader, raw socket)."""
    response = api._post_json(  # the SDK's own exec_start does exactly this
        api._url("/exec/{0}/start", exec_id),
        headers={"Connection": "Upgrade", "Upgrade": "tcp"},
        data={"Tty": False, "Detach": False},
        stream=True,
    )
    api._raise_for_status(response)
    # Read through the buffered reader: it may already hold frames that arrived
    # with the HTTP headers. Write and set timeouts on the socket below it.
    reader = response.raw._fp.fp
    raw = reader.raw
    sock = getattr(raw, "_sock", raw)
    return response, reader, sock


def run_exec(
    api: Any,
    container_id: str,
    argv: Sequence[str],
    *,
    stdin: bytes | None,
    user: str,
    workdir: str | None,
    env: Mapping[str, str] | None,
    output_limit: int,
    host_timeout: float | None,
) -> RawExec:
    """Run ``argv`` in the container and collect its output.

    ``host_timeout`` bounds the whole exchange on the host side; it is a safety
    net behind the in-container timeout, not the primary mechanism.

    Raises:
        docker.errors.APIError / NotFound: the Engine refused the exec.
    """
    started = time.monotonic()
    deadline = None if host_timeout is None else started + host_timeout
    created = api.exec_create(
        container_id,
        list(argv),
        stdin=stdin is not None,
        stdout=True,
        stderr=True,
        tty=False,
        user=user,
        workdir=workdir,
        environment=dict(env) if env else None,
    )
    exec_id: str = created["Id"]
    response, reader, sock = _open_stream(api, exec_id)
    out = _Capped(output_limit)
    err = _Capped(output_limit)
    host_timed_out = False
    writer: threading.Thread | None = None
    try:
        if stdin is not None:
            writer = threading.Thread(target=_write_stdin, args=(sock, stdin), daemon=True)
            writer.start()
        pending = b""
        while True:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    host_timed_out = True
                    break
                sock.settimeout(remaining)
            try:
                chunk = reader.read1(_READ_CHUNK)
            except TimeoutError:
                host_timed_out = True
                break
            if not chunk:
                break
            pending += chunk
            while len(pending) >= _HEADER.size:
                kind, length = _HEADER.unpack_from(pending)
                if len(pending) < _HEADER.size + length:
                    break
                payload = pending[_HEADER.size : _HEADER.size + length]
                pending = pending[_HEADER.size + length :]
                (err if kind == 2 else out).add(payload)
    finally:
        with contextlib.suppress(Exception):
            response.close()
        with contextlib.suppress(OSError):
            sock.close()
    if writer is not None:
        writer.join(timeout=1.0)
    exit_code = None if host_timed_out else _exit_code(api, exec_id)
    return RawExec(
        exit_code=exit_code,
        stdout=out.value(),
        stderr=err.value(),
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        host_timed_out=host_timed_out,
        duration_sec=time.monotonic() - started,
    )


def _exit_code(api: Any, exec_id: str) -> int | None:
    """The exit code; the Engine may report the exec as running for a moment after EOF."""
    give_up = time.monotonic() + _EXIT_POLL_SEC
    delay = 0.002
    while True:
        info = api.exec_inspect(exec_id)
        if not info.get("Running"):
            code = info.get("ExitCode")
            return int(code) if code is not None else None
        if time.monotonic() > give_up:
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
