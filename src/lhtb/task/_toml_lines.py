"""Find the 1-based line where each key of a TOML document is written.

tomlkit parses with line numbers for syntax errors but keeps no positions for
the keys it parsed. Error messages about a key ("unknown key", "wrong type")
need that line, so this module scans the source of an already valid document
once and records where every key path is first written.

A key path is a tuple of table keys and array indices, e.g.
``("verifier", "subtasks", 1, "weight")`` for the ``weight`` of the second
``[[verifier.subtasks]]`` entry.
"""

from __future__ import annotations

import bisect
import contextlib
import json
from collections.abc import Mapping

__all__ = ["KeyPath", "dotted", "first_redefinition", "key_lines", "line_of"]

KeyPath = tuple[str | int, ...]

_BARE_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_SCALAR_END = frozenset(",]}#\n")


def dotted(path: KeyPath) -> str:
    """Render a key path the way a user reads it: ``verifier.subtasks[1].weight``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


def line_of(lines: Mapping[KeyPath, int], path: KeyPath) -> int | None:
    """The line of ``path``, or of its closest written ancestor, or ``None``."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None


def first_redefinition(source: str) -> tuple[KeyPath, int] | None:
    """The first key or table that ``source`` defines twice, with its second line.

    tomlkit reports some redefinitions without a line; this finds it.
    """
    scanner = _Scanner(source)
    with contextlib.suppress(IndexError, ValueError):
        scanner.document()
    return scanner.redefinitions[0] if scanner.redefinitions else None


def key_lines(source: str) -> dict[KeyPath, int]:
    """Map every key path written in ``source`` to the 1-based line of its first mention.

    ``source`` must be valid TOML (parse it with tomlkit first). The scan is
    best effort: should it meet something it does not understand it returns
    what it found so far rather than raise.
    """
    scanner = _Scanner(source)
    with contextlib.suppress(IndexError, ValueError):
        scanner.document()
    return scanner.lines


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.lines: dict[KeyPath, int] = {}
        self._newlines = [i for i, char in enumerate(text) if char == "\n"]
        self._aot_counts: dict[KeyPath, int] = {}
        self.redefinitions: list[tuple[KeyPath, int]] = []

    # -- helpers -------------------------------------------------------------------------------

    def _line(self) -> int:
        return bisect.bisect_left(self._newlines, self.pos) + 1

    def _record(self, path: KeyPath, line: int, *, unique: bool = False) -> None:
        if unique and path in self.lines:
            self.redefinitions.append((path, line))
        self.lines.setdefault(path, line)

    def _peek(self, count: int = 1) -> str:
        return self.text[self.pos : self.pos + count]

    def _at_end(self) -> bool:
        return self.pos >= len(self.text)

    def _skip_blank(self, *, newlines: bool) -> None:
        while not self._at_end():
            char = self.text[self.pos]
            if char in " \t\r" or (newlines and char == "\n"):
                self.pos += 1
            elif char == "#" and newlines:
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                return

    # -- document structure --------------------------------------------------------------------

    def document(self) -> None:
        table: KeyPath = ()
        while True:
            self._skip_blank(newlines=True)
            if self._at_end():
                return
            line = self._line()
            if self._peek() == "[":
                table = self._header(line)
            else:
                keys = self._key()
                self._skip_blank(newlines=False)
                self.pos += 1  # "="
                self._value(table + keys, line)

    def _header(self, line: int) -> KeyPath:
        array = self._peek(2) == "[["
        self.pos += 2 if array else 1
        keys = self._key()
        self._skip_blank(newlines=False)
        self.pos += 2 if array else 1
        parent = self._resolve(keys[:-1]) + keys[-1:]
        if not array:
            self._record(parent, line, unique=True)
            return parent
        index = self._aot_counts.get(parent, -1) + 1
        self._aot_counts[parent] = index
        self._record(parent, line)
        self._record((*parent, index), line)
        return (*parent, index)

    def _resolve(self, keys: KeyPath) -> KeyPath:
        """Insert the current index after every array-of-tables prefix of ``keys``."""
        resolved: KeyPath = ()
        for key in keys:
            resolved = (*resolved, key)
            if resolved in self._aot_counts:
                resolved = (*resolved, self._aot_counts[resolved])
        return resolved

    def _key(self) -> KeyPath:
        parts: list[str] = []
        while True:
            self._skip_blank(newlines=False)
            char = self._peek()
            if char == '"':
                parts.append(json.loads(self._basic_string()))
            elif char == "'":
                end = self.text.index("'", self.pos + 1)
                parts.append(self.text[self.pos + 1 : end])
                self.pos = end + 1
            else:
                start = self.pos
                while not self._at_end() and self.text[self.pos] in _BARE_KEY_CHARS:
                    self.pos += 1
                if self.pos == start:
                    raise ValueError("expected a key")
                parts.append(self.text[start : self.pos])
            self._skip_blank(newlines=False)
            if self._peek() != ".":
                return tuple(parts)
            self.pos += 1

    # -- values --------------------------------------------------------------------------------

    def _value(self, path: KeyPath, line: int) -> None:
        self._record(path, line, unique=not isinstance(path[-1], int))
        self._skip_blank(newlines=False)
        char = self._peek()
        if self._peek(3) in ('"""', "'''"):
            self._multiline_string()
        elif char == '"':
            self._basic_string()
        elif char == "'":
            self.pos = self.text.index("'", self.pos + 1) + 1
        elif char == "[":
            self._array(path)
        elif char == "{":
            self._inline_table(path)
        else:
            start = self.pos
            while not self._at_end() and self.text[self.pos] not in _SCALAR_END:
                self.pos += 1
            if self.pos == start:
                raise ValueError("expected a value")

    def _basic_string(self) -> str:
        start = self.pos
        self.pos += 1
        while self.text[self.pos] != '"':
            self.pos += 2 if self.text[self.pos] == "\\" else 1
        self.pos += 1
        return self.text[start : self.pos]

    def _multiline_string(self) -> None:
        quote = self._peek(3)
        self.pos += 3
        while self._peek(3) != quote:
            self.pos += 2 if quote == '"""' and self.text[self.pos] == "\\" else 1
        self.pos += 3
        # Up to two quotes right before the closing delimiter belong to the content.
        for _ in range(2):
            if self._peek() == quote[0]:
                self.pos += 1

    def _array(self, path: KeyPath) -> None:
        self.pos += 1
        index = 0
        while True:
            self._skip_blank(newlines=True)
            if self._peek() == "]":
                self.pos += 1
                return
            self._value((*path, index), self._line())
            index += 1
            self._skip_blank(newlines=True)
            if self._peek() == ",":
                self.pos += 1

    def _inline_table(self, path: KeyPath) -> None:
        self.pos += 1
        while True:
            self._skip_blank(newlines=True)
            if self._peek() == "}":
                self.pos += 1
                return
            line = self._line()
            keys = self._key()
            self._skip_blank(newlines=False)
            self.pos += 1  # "="
            self._value(path + keys, line)
            self._skip_blank(newlines=True)
            if self._peek() == ",":
                self.pos += 1
