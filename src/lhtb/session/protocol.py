"""The session protocol: JSON lines over a Unix socket (see docs/external-agents.md).

Each request is one JSON object on one line, ``{"id": ..., "op": ..., ...}``;
each answer is one line, ``{"id": ..., "ok": true, "result": {...}}`` or
``{"id": ..., "ok": false, "error": {"code": ..., "message": ...}}``. This module
checks requests (types, sizes) and shapes answers; it never touches a sandbox.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import attrs

__all__ = [
    "MAX_EXEC_TIMEOUT_SEC",
    "MAX_FILE_BYTES",
    "MAX_REQUEST_BYTES",
    "OPS",
    "ProtocolError",
    "Request",
    "error_line",
    "parse_request",
    "result_line",
]

MAX_REQUEST_BYTES = 12 * 1024 * 1024
"""Longest request line accepted (a base64 file of :data:`MAX_FILE_BYTES` fits)."""
MAX_FILE_BYTES = 8 * 1024 * 1024
"""Largest file ``write_file`` takes and ``read_file`` returns."""
MAX_OUTPUT_BYTES = 1024 * 1024
"""Most bytes of stdout (and of stderr) one ``exec`` answer carries."""
MAX_EXEC_TIMEOUT_SEC = 24 * 3600.0
"""Longest ``timeout`` an ``exec`` may ask for (the budget still cuts it off)."""

OPS = ("hello", "status", "exec", "read_file", "write_file", "submit", "events")
"""Every operation the protocol has."""


class ProtocolError(Exception):
    """A request the session refuses; ``code`` is what clients switch on."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


@attrs.frozen
class Request:
    """One checked request."""

    op: str
    id: Any = None
    args: dict[str, Any] = attrs.field(factory=dict)


def parse_request(line: bytes) -> Request:
    """Check one request line and return it.

    Raises:
        ProtocolError: not JSON, not an object, an unknown op, or bad arguments
            (``bad_request``).
    """
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError("bad_request", f"the request is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_request", "a request must be a JSON object")
    op = data.get("op")
    if op not in OPS:
        raise ProtocolError("bad_request", f"unknown op {op!r}; one of: {', '.join(OPS)}")
    args = {k: v for k, v in data.items() if k not in ("op", "id")}
    request = Request(op=op, id=data.get("id"), args=args)
    _CHECKS.get(op, _no_args)(request)
    return request


def result_line(request_id: Any, result: dict[str, Any]) -> bytes:
    """The answer line for a request that succeeded."""
    return _line({"id": request_id, "ok": True, "result": result})


def error_line(request_id: Any, error: ProtocolError) -> bytes:
    """The answer line for a refused or failed request."""
    return _line(
        {"id": request_id, "ok": False, "error": {"code": error.code, "message": error.message}}
    )


def decode_content(args: dict[str, Any]) -> bytes:
    """The bytes of a ``write_file`` request (checked by :func:`parse_request`)."""
    content: str = args["content"]
    if args.get("encoding", "utf-8") == "base64":
        return base64.b64decode(content, validate=True)
    return content.encode("utf-8")


def encode_content(data: bytes) -> dict[str, str]:
    """File bytes as ``{"content", "encoding"}``: text when UTF-8, else base64."""
    try:
        return {"content": data.decode("utf-8"), "encoding": "utf-8"}
    except UnicodeDecodeError:
        return {"content": base64.b64encode(data).decode("ascii"), "encoding": "base64"}


def _line(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode("utf-8") + b"\n"


def _bad(message: str) -> ProtocolError:
    return ProtocolError("bad_request", message)


def _allowed(request: Request, *names: str) -> None:
    extra = sorted(set(request.args) - set(names))
    if extra:
        raise _bad(f"{request.op} takes no {', '.join(extra)} (it takes: {', '.join(names)})")


def _no_args(request: Request) -> None:
    _allowed(request)


def _path(request: Request) -> None:
    path = request.args.get("path")
    if not isinstance(path, str) or not path.startswith("/") or "\0" in path:
        raise _bad(f"{request.op} needs 'path', an absolute path string")


def _check_hello(request: Request) -> None:
    _allowed(request, "client")
    client = request.args.get("client", "")
    if not isinstance(client, str) or len(client) > 200:
        raise _bad("hello's 'client' must be a string of at most 200 characters")


def _check_exec(request: Request) -> None:
    _allowed(request, "cmd", "timeout", "cwd", "stdin")
    cmd = request.args.get("cmd")
    argv_ok = isinstance(cmd, list) and cmd and all(isinstance(a, str) for a in cmd)
    if not (isinstance(cmd, str) and cmd) and not argv_ok:
        raise _bad("exec needs 'cmd': a shell command string or a non-empty list of strings")
    timeout = request.args.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout <= MAX_EXEC_TIMEOUT_SEC
    ):
        raise _bad(f"exec's 'timeout' must be seconds in (0, {MAX_EXEC_TIMEOUT_SEC:g}]")
    cwd = request.args.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd.startswith("/")):
        raise _bad("exec's 'cwd' must be an absolute path")
    stdin = request.args.get("stdin")
    if stdin is not None and (not isinstance(stdin, str) or len(stdin) > MAX_FILE_BYTES):
        raise _bad(f"exec's 'stdin' must be a string of at most {MAX_FILE_BYTES} characters")


def _check_read(request: Request) -> None:
    _allowed(request, "path")
    _path(request)


def _check_write(request: Request) -> None:
    _allowed(request, "path", "content", "encoding", "mode")
    _path(request)
    content = request.args.get("content")
    if not isinstance(content, str):
        raise _bad("write_file needs 'content', a string")
    encoding = request.args.get("encoding", "utf-8")
    if encoding not in ("utf-8", "base64"):
        raise _bad("write_file's 'encoding' must be 'utf-8' or 'base64'")
    mode = request.args.get("mode")
    if mode is not None and (
        isinstance(mode, bool) or not isinstance(mode, int) or not 0 <= mode <= 0o7777
    ):
        raise _bad("write_file's 'mode' must be an integer permission such as 420 (0o644)")
    try:
        size = len(decode_content(request.args))
    except (binascii.Error, ValueError) as exc:
        raise _bad(f"write_file's 'content' is not valid base64 ({exc})") from None
    if size > MAX_FILE_BYTES:
        raise ProtocolError("too_large", f"file of {size} bytes; the limit is {MAX_FILE_BYTES}")


def _check_events(request: Request) -> None:
    _allowed(request, "since")
    since = request.args.get("since", 0)
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise _bad("events' 'since' must be a non-negative integer")


_CHECKS = {
    "hello": _check_hello,
    "exec": _check_exec,
    "read_file": _check_read,
    "write_file": _check_write,
    "events": _check_events,
}
