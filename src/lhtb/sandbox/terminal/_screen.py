"""A plain screen model for terminal sessions, shared by the backends.

Not a terminal emulator: it keeps the raw bytes, a stream of new output with
control sequences removed (for :meth:`Terminal.read`), and a line buffer that
honours the few controls line-oriented programs use (newline, carriage return,
backspace, erase-line, clear-screen) for :meth:`Terminal.screen`. Cursor
addressing (full-screen TUIs) is dropped, not rendered. Thread-safe: a reader
thread feeds it while the event loop reads it.
"""

from __future__ import annotations

import codecs
import threading

__all__ = ["PlainScreen"]

_ESC = "\x1b"
_MAX_LINES = 2000
_MAX_PENDING_TEXT = 4 * 1024 * 1024
RAW_LIMIT = 4 * 1024 * 1024


class PlainScreen:
    """Feed it terminal output; read back new plain text, the screen, or the raw bytes."""

    def __init__(self, rows: int = 24, cols: int = 80, raw_limit: int = RAW_LIMIT) -> None:
        self.rows = rows
        self.cols = cols
        self._raw_limit = raw_limit
        self._raw = bytearray()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._lock = threading.Lock()
        self._state = "text"
        self._csi = ""
        self._lines: list[str] = [""]
        self._col = 0
        self._new: list[str] = []
        self._new_size = 0
        self._last_was_cr = False
        self.fed = 0

    # -- feeding (reader thread) -------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Add output the program wrote."""
        with self._lock:
            self.fed += len(data)
            self._raw += data
            if len(self._raw) > self._raw_limit:
                del self._raw[: len(self._raw) - self._raw_limit]
            for char in self._decoder.decode(data):
                self._char(char)
            if len(self._lines) > _MAX_LINES:
                del self._lines[: len(self._lines) - _MAX_LINES]

    def _emit(self, text: str) -> None:
        if self._new_size < _MAX_PENDING_TEXT:
            self._new.append(text)
            self._new_size += len(text)

    def _char(self, char: str) -> None:
        state = self._state
        if state == "esc":
            self._state = {"[": "csi", "]": "osc", "(": "charset", ")": "charset"}.get(char, "text")
            self._csi = ""
            return
        if state == "csi":
            if "@" <= char <= "~":
                self._control_sequence(self._csi, char)
                self._state = "text"
            else:
                self._csi += char
            return
        if state == "osc":
            if char == "\x07":
                self._state = "text"
            elif char == _ESC:
                self._state = "osc_esc"
            return
        if state in {"osc_esc", "charset"}:
            self._state = "text"
            return
        if char == _ESC:
            self._state = "esc"
        elif char == "\n":
            self._newline()
        elif char == "\r":
            self._col = 0
            self._last_was_cr = True
            return
        elif char == "\b":
            self._col = max(0, self._col - 1)
        elif char == "\t":
            self._put(" " * (8 - self._col % 8))
        elif char >= " " and char != "\x7f":
            self._put(char)
        self._last_was_cr = False

    def _newline(self) -> None:
        self._lines.append("")
        self._col = 0
        self._emit("\n")

    def _put(self, text: str) -> None:
        if self._last_was_cr and self._col == 0 and self._lines[-1]:
            # A carriage return followed by text rewrites the line (progress bars, prompts).
            self._emit("\n")
        line = self._lines[-1]
        if self._col > len(line):
            line += " " * (self._col - len(line))
        self._lines[-1] = line[: self._col] + text + line[self._col + len(text) :]
        self._col += len(text)
        self._emit(text)
        if self._col >= self.cols:
            self._lines.append("")
            self._col = 0

    def _control_sequence(self, params: str, final: str) -> None:
        if final == "K":  # erase in line
            mode = params or "0"
            line = self._lines[-1]
            if mode == "0":
                self._lines[-1] = line[: self._col]
            elif mode == "2":
                self._lines[-1] = ""
        elif final == "J" and params in {"2", "3"}:  # clear screen
            self._lines = [""]
            self._col = 0
        elif final == "D":  # cursor back
            self._col = max(0, self._col - (int(params) if params.isdigit() else 1))
        elif final == "G":  # cursor to column
            self._col = max(0, int(params) - 1) if params.isdigit() else 0

    # -- reading (event loop) ------------------------------------------------------------------

    def take_new(self) -> str:
        """Plain text written since the last call."""
        with self._lock:
            text = "".join(self._new)
            self._new.clear()
            self._new_size = 0
        return text

    def has_new(self) -> bool:
        """True when output arrived since the last :meth:`take_new`."""
        with self._lock:
            return bool(self._new)

    def screen(self) -> str:
        """The last ``rows`` lines, trailing spaces removed."""
        with self._lock:
            lines = self._lines[-self.rows :]
        return "\n".join(line.rstrip() for line in lines)

    def raw(self) -> bytes:
        """The raw bytes kept so far (the newest ``raw_limit`` bytes)."""
        with self._lock:
            return bytes(self._raw)

    def resize(self, rows: int, cols: int) -> None:
        """Use a new size for :meth:`screen` and line wrapping."""
        with self._lock:
            self.rows, self.cols = rows, cols
