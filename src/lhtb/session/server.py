"""``serve_session``: one episode whose agent is a client on a Unix socket.

One client at a time: a second connection is answered with a ``busy`` error
and closed. A client that said ``hello`` is the session's agent: its
disconnect counts as a stop. Other connections (``lhtb exec``, ``lhtb submit``
from another terminal) make requests and leave without stopping anything.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ByteStream
from anyio.streams.buffered import BufferedByteReceiveStream

from lhtb._util.log import get_logger
from lhtb.episode._record import Episode
from lhtb.episode._runner import run_episode
from lhtb.session.core import Session, SessionAgents
from lhtb.session.protocol import (
    MAX_REQUEST_BYTES,
    ProtocolError,
    error_line,
    parse_request,
    result_line,
)
from lhtb.task._model import Task

__all__ = ["LEAVE_GRACE_SEC", "SHUTDOWN_GRACE_SEC", "default_socket_path", "serve_session"]

_log = get_logger(__name__)

SHUTDOWN_GRACE_SEC = 10.0
"""How long a finished session waits for answers in flight before closing its socket."""
LEAVE_GRACE_SEC = 5.0
"""How long it then waits for its client to leave before closing the connection (closing
while the client also closes is a race in anyio's Unix socket streams)."""


def default_socket_path() -> Path:
    """A new socket path in a private (0700) directory under the temp dir."""
    return Path(tempfile.mkdtemp(prefix="lhtb-session-")) / "session.sock"


async def serve_session(
    task: Task,
    *,
    agent_name: str,
    socket_path: Path | None = None,
    on_ready: Callable[[Path, Session], Any] | None = None,
    session: Session | None = None,
    **episode_args: Any,
) -> Episode:
    """Run one episode of ``task`` served on a Unix socket; return its record.

    ``on_ready(path, session)`` is called once the socket listens; ``episode_args``
    go to :func:`~lhtb.episode.run_episode` (``backend``, ``budget``, ``seed``, ...).
    A ``session`` may be given to drive it in-process as well (``lhtb play``).
    """
    path = socket_path or default_socket_path()
    session = session or Session(task.name, task.instruction)
    server = _Server(session)
    previous = os.umask(0o177)
    try:
        listener = await anyio.create_unix_listener(path)
    finally:
        os.umask(previous)
    path.chmod(0o600)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, server.connection)
        if on_ready is not None:
            on_ready(path, session)
        try:
            episode = await run_episode(
                task, SessionAgents(session, agent_name), on_event=session.on_event, **episode_args
            )
            session.finish(episode)
            with anyio.move_on_after(SHUTDOWN_GRACE_SEC):
                await server.wait(lambda: not server.busy)  # answers in flight go out
            with anyio.move_on_after(LEAVE_GRACE_SEC):
                await server.wait(lambda: not server.connected)  # a client that is done leaves
        finally:
            with anyio.CancelScope(shield=True):
                await server.close_all()
            group.cancel_scope.cancel()
            path.unlink(missing_ok=True)
            if socket_path is None:
                path.parent.rmdir()  # the private directory made for it
    return episode


class _Server:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.connected = False
        self.attached = False
        self.busy = 0
        self._changed = anyio.Event()
        self._streams: set[ByteStream] = set()

    async def close_all(self) -> None:
        """Close every connection (waking its reader, which cancelling would race)."""
        for stream in list(self._streams):
            await stream.aclose()

    async def wait(self, condition: Callable[[], bool]) -> None:
        """Wait until ``condition()`` holds (checked whenever a request or connection ends)."""
        while not condition():
            await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def connection(self, stream: ByteStream) -> None:
        async with stream:
            if self.connected:
                busy = ProtocolError(
                    "busy", "another client is connected to this session; one at a time"
                )
                await stream.send(error_line(None, busy))
                return
            self.connected = True
            self._streams.add(stream)
            try:
                await self._serve(stream)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # the client left before its answer was sent
            finally:
                self._streams.discard(stream)
                self.connected = False
                self._notify()
                if self.attached:
                    self.session.stop()  # the agent's client left: that is a stop
                self.attached = False

    async def _serve(self, stream: ByteStream) -> None:
        lines, requests = anyio.create_memory_object_stream[bytes | ProtocolError](0)
        async with anyio.create_task_group() as group:
            group.start_soon(_read_lines, stream, lines, group.cancel_scope)
            async with requests:
                async for line in requests:
                    if isinstance(line, ProtocolError):
                        await stream.send(error_line(None, line))
                        break
                    await self._answer(stream, line)
            group.cancel_scope.cancel()

    async def _answer(self, stream: ByteStream, line: bytes) -> None:
        request_id = None
        self.busy += 1
        try:
            try:
                request = parse_request(line)
                request_id = request.id
                if request.op == "hello":
                    self.attached = True
                answer = result_line(request_id, await self.session.handle(request))
            except ProtocolError as exc:
                answer = error_line(request_id, exc)
            except Exception as exc:  # a bug: the client is told, the episode goes on
                _log.exception("session_request_failed", request=line[:200])
                failure = ProtocolError("internal_error", f"{type(exc).__name__}: {exc}")
                answer = error_line(request_id, failure)
            await stream.send(answer)
        finally:
            self.busy -= 1
            self._notify()


async def _read_lines(
    stream: ByteStream,
    lines: anyio.abc.ObjectSendStream[bytes | ProtocolError],
    scope: anyio.CancelScope,
) -> None:
    """Feed request lines; at the client's end of stream, cancel what it asked for."""
    buffered = BufferedByteReceiveStream(stream)
    async with lines:
        while True:
            try:
                line = await buffered.receive_until(b"\n", MAX_REQUEST_BYTES)
            except anyio.DelimiterNotFound:
                too_large = ProtocolError(
                    "too_large", f"a request line is longer than {MAX_REQUEST_BYTES} bytes"
                )
                await lines.send(too_large)
                return
            except anyio.ClosedResourceError:
                return  # the session closed the connection
            except (anyio.IncompleteRead, anyio.EndOfStream, anyio.BrokenResourceError):
                scope.cancel()  # the client left: stop what it asked for
                return
            if line.strip():
                await lines.send(line)
