"""A small blocking client of the session protocol (``lhtb exec``, ``lhtb submit``, tests)."""

from __future__ import annotations

import itertools
import json
import os
import socket
from pathlib import Path
from typing import Any

from lhtb.errors import LhtbError, SessionRequestError

__all__ = [
    "SESSION_ENV",
    "SessionClient",
    "resolve_session",
    "verdict_text",
]

SESSION_ENV = "LHTB_SESSION"
"""Environment variable naming the session socket when a command is given none."""


def resolve_session(session: str | None) -> Path:
    """The socket path: the argument, else ``$LHTB_SESSION``.

    Raises:
        LhtbError: neither is set, or nothing is listening there.
    """
    value = session or os.environ.get(SESSION_ENV)
    if not value:
        raise LhtbError(
            "no session given",
            fix=f"pass the socket path `lhtb serve` printed, or set ${SESSION_ENV} to it",
        )
    path = Path(value)
    if not path.is_socket():
        raise LhtbError(
            "no session socket here", where=str(path), fix="is the session still running?"
        )
    return path


class SessionClient:
    """One connection to a session. ``request`` sends one request and returns its result."""

    def __init__(self, path: Path, *, timeout: float | None = None) -> None:
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.settimeout(timeout)
        try:
            self._socket.connect(str(path))
        except OSError as exc:
            self._socket.close()
            raise LhtbError(f"cannot connect to the session ({exc})", where=str(path)) from None
        self._reader = self._socket.makefile("rb")
        self._ids = itertools.count(1)

    def request(self, op: str, **args: Any) -> dict[str, Any]:
        """Send ``op`` and wait for its answer.

        Raises:
            SessionRequestError: the session answered with an error.
            LhtbError: the session closed the connection.
        """
        request_id = next(self._ids)
        payload = json.dumps({"id": request_id, "op": op, **args}) + "\n"
        try:
            self._socket.sendall(payload.encode("utf-8"))
        except OSError as exc:
            raise LhtbError(f"the session closed the connection ({exc})") from None
        answer = self.receive()
        if not answer.get("ok"):
            error = answer.get("error") or {}
            raise SessionRequestError(str(error.get("code")), str(error.get("message")))
        result: dict[str, Any] = answer["result"]
        return result

    def receive(self) -> dict[str, Any]:
        """The next answer line (raises :class:`LhtbError` at the end of the stream)."""
        line = self._reader.readline()
        if not line:
            raise LhtbError("the session closed the connection (the episode may have ended)")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (for tests of malformed requests)."""
        self._socket.sendall(data)

    def close(self) -> None:
        """Disconnect (for the session's agent client, that is a stop)."""
        self._reader.close()
        self._socket.close()

    def __enter__(self) -> SessionClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def verdict_text(verdict: dict[str, Any]) -> str:
    """A ``submit`` answer for people."""
    if verdict["final"]:
        reward = verdict.get("reward")
        shown = "no reward" if reward is None else f"reward {reward:g}"
        return f"the episode is over: {verdict['outcome']} ({shown})"
    return f"rejected. {verdict['feedback']}"
