"""A real HTTP server speaking the OpenAI chat-completions API, replaying a script.

Stdlib only (``http.server`` in a thread). Each POST to ``/v1/chat/completions``
takes the next item of the script: a reply (text and/or tool calls, usage),
an HTTP error (status, body, headers such as ``Retry-After``), optionally after
a delay. An item may be a callable that builds the item from the request.
When the script runs out, ``fallback`` is used (by default: call ``finish``).
Every request body is kept in ``requests`` for assertions.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs


@attrs.frozen
class Reply:
    content: str | None = None
    tool_calls: tuple[tuple[str, Any], ...] = ()
    """(function name, arguments): a dict is JSON-encoded, a str is sent verbatim."""
    usage: tuple[int, int, int] | None = (100, 20, 0)
    delay: float = 0.0
    model: str = "fake-model"


@attrs.frozen
class Error:
    status: int
    message: str = "error"
    code: str | None = None
    headers: dict[str, str] = attrs.field(factory=dict)
    delay: float = 0.0


Item = Reply | Error | Callable[[dict[str, Any]], "Reply | Error"]


def call(name: str, arguments: Any) -> tuple[str, Any]:
    return (name, arguments)


def bash(command: str) -> Reply:
    return Reply(tool_calls=(call("bash", {"command": command}),))


def finish(summary: str = "done") -> Reply:
    return Reply(tool_calls=(call("finish", {"summary": summary}),))


def _body(reply: Reply) -> dict[str, Any]:
    tool_calls = [
        {
            "id": f"call_{uuid.uuid4().hex[:10]}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for name, args in reply.tool_calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
    }
    if reply.usage is not None:
        prompt, completion, cached = reply.usage
        body["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
    return body


class FakeOpenAI:
    """The script, the recorded requests, and the server's base URL once started."""

    def __init__(self, script: list[Item], fallback: Item | None = None) -> None:
        self.script = list(script)
        self.fallback: Item = fallback or finish()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []
        self.base_url = ""
        self._lock = threading.Lock()

    def next_item(self, request: dict[str, Any]) -> Reply | Error:
        with self._lock:
            self.requests.append(request)
            self.times.append(time.monotonic())
            item = self.script.pop(0) if self.script else self.fallback
        return item(request) if callable(item) else item

    @property
    def calls(self) -> int:
        return len(self.requests)


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            request = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found"}}, {})
                return
            with fake._lock:
                fake.headers.append(dict(self.headers))
            item = fake.next_item(request)
            if item.delay:
                time.sleep(item.delay)
            if isinstance(item, Error):
                error = {"message": item.message, "type": "error", "code": item.code}
                self._send(item.status, {"error": error}, item.headers)
            else:
                self._send(200, _body(item), {})

    return Handler


@contextmanager
def serve(fake: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """Run ``fake`` on a free localhost port; ``fake.base_url`` ends in ``/v1``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
