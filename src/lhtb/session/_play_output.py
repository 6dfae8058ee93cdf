"""The sandbox shell's output on its way to the person's terminal (``lhtb play``).

:class:`OutputFilter` takes out lhtb's private escape sequences (the play
shell's requests, and the Docker terminal's session marker), and
:class:`TerminalWriter` writes the rest to the person's terminal, putting
lhtb's own messages and title updates only where they cannot split the
program's output (between escape sequences and whole UTF-8 characters).
"""

from __future__ import annotations

import os
import re
import threading

__all__ = ["OutputFilter", "TerminalWriter", "at_rest"]

PRIVATE_PREFIX = b"\x1b]lhtb-"
"""How every lhtb escape sequence starts: an OSC string no terminal acts on."""
_PRIVATE = re.compile(rb"\x1b\]lhtb-([^\x07\x1b]{0,300})(?:\x07|\x1b\\)")
_MAX_HELD = 512
_COMPLETE = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\"
    rb"|[ -/]+[0-~]|[0-OQ-WYZ\\`-~])"
)


def at_rest(data: bytes) -> bool:
    """True when ``data`` does not end inside an escape sequence or a UTF-8 character."""
    escape = data.rfind(b"\x1b")
    if escape >= 0 and not _COMPLETE.match(data, escape):
        return False
    tail = data[-4:]
    for back, byte in enumerate(reversed(tail), start=1):
        if byte < 0x80:
            return True
        if byte >= 0xC0:  # a lead byte: how many bytes its character needs
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return back >= needed
    return True


class OutputFilter:
    """Strips lhtb's private sequences from the output; returns the play shell's requests.

    A request is ``ESC ] lhtb-play;TOKEN;OP BEL``; one with another token is
    dropped, not obeyed. A sequence split across chunks is held until it is whole.
    """

    def __init__(self, token: str) -> None:
        self._request = f"play;{token};".encode()
        self._held = b""

    def feed(self, chunk: bytes) -> tuple[bytes, list[str]]:
        """The bytes to show and the requests found (``b""`` flushes what is held)."""
        data, self._held = self._held + chunk, b""
        requests: list[str] = []

        def take(found: re.Match[bytes]) -> bytes:
            body = found.group(1)
            if body.startswith(self._request):
                requests.append(body[len(self._request) :].decode(errors="replace"))
            return b""

        data = _PRIVATE.sub(take, data)
        if chunk:
            start = data.rfind(PRIVATE_PREFIX)
            if start < 0:
                start = _partial_prefix(data)
            if start >= 0 and len(data) - start < _MAX_HELD:
                data, self._held = data[:start], data[start:]
        return data, requests


def _partial_prefix(data: bytes) -> int:
    """Where a proper prefix of :data:`PRIVATE_PREFIX` ends ``data``, else -1."""
    for size in range(min(len(PRIVATE_PREFIX) - 1, len(data)), 0, -1):
        if data.endswith(PRIVATE_PREFIX[:size]):
            return len(data) - size
    return -1


class TerminalWriter:
    """Writes to the person's terminal from the reader thread and the event loop.

    :meth:`output` is the program's output; :meth:`inject` and :meth:`title`
    are lhtb's own, written at once when the output is at rest, else right
    after the next chunk that leaves it at rest (only the newest title waits).
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lock = threading.Lock()
        self._rest = True
        self._closed = False
        self._deferred: list[bytes] = []
        self._title = b""

    def output(self, data: bytes) -> None:
        """The program's output (reader thread)."""
        with self._lock:
            if data:
                self._write(data)
                self._rest = at_rest(data)
            if self._rest:
                self._flush()

    def inject(self, data: bytes, *, force: bool = False) -> None:
        """lhtb's own bytes, kept from splitting the program's (``force``: write now)."""
        with self._lock:
            self._deferred.append(data)
            if self._rest or force:
                self._flush()

    def title(self, text: str) -> None:
        """Set the terminal's title (OSC 2) to ``text``."""
        with self._lock:
            self._title = b"\x1b]2;" + text.encode() + b"\x07"
            if self._rest:
                self._flush()

    def _flush(self) -> None:
        if self._deferred or self._title:
            self._write(b"".join([*self._deferred, self._title]))
            self._deferred.clear()
            self._title = b""

    def close(self) -> None:
        """Write nothing more (the relay has ended; the terminal is the person's again)."""
        with self._lock:
            self._closed = True

    def _write(self, data: bytes) -> None:
        if self._closed:
            return
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view) :]
        except OSError:
            pass  # the person's terminal is gone; the episode goes on
