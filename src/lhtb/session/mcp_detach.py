"""``lhtb mcp``'s front: the MCP server runs in its own session, so a client's kill misses it.

MCP clients end a stdio server by closing its stdin, waiting a moment, then
killing its whole process group (the SDK waits 2 s, then SIGTERM, then
SIGKILL). A stop is verified after the client leaves, which can take longer,
so the episode must outlive that: the front starts the MCP server
(``lhtb mcp --attached``) in a new session and relays stdin and stdout to it
byte for byte. When the client closes stdin the front passes that on and
exits at once; the server takes it as a stop and runs the episode to its end
by the rules, writing its record and its outcome (to stderr) as always.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import IO, cast

__all__ = ["relay_to_detached"]

_CHUNK = 64 * 1024


def relay_to_detached(argv: Sequence[str]) -> int:
    """Run ``argv`` in a new session with stdio relayed; its exit code, or 0 if the client left."""
    child = subprocess.Popen(
        list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )
    to_server, from_server = cast(IO[bytes], child.stdin), cast(IO[bytes], child.stdout)
    ended = threading.Event()
    client_left = threading.Event()

    def client_to_server(target: IO[bytes]) -> None:
        with contextlib.suppress(OSError):
            while data := os.read(sys.stdin.fileno(), _CHUNK):
                target.write(data)
                target.flush()
        with contextlib.suppress(OSError):
            target.close()  # the client left: the server takes it as a stop
        client_left.set()
        ended.set()

    def server_to_client(source: IO[bytes]) -> None:
        with contextlib.suppress(OSError):
            while data := os.read(source.fileno(), _CHUNK):
                sys.stdout.buffer.write(data)
                sys.stdout.buffer.flush()
        ended.set()

    for pump, stream in ((client_to_server, to_server), (server_to_client, from_server)):
        threading.Thread(target=pump, args=(stream,), daemon=True).start()
    ended.wait()
    if client_left.is_set() and child.poll() is None:
        return 0  # the episode goes on in the server's own session
    return child.wait()
