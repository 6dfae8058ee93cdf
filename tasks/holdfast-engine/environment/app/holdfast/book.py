"""A small opening book for the first few moves from the standard centre.

Entries map the disc layout (stones ignored: they rarely touch the centre)
to a preferred reply. Books are loaded from ``book.txt`` beside the package:
one ``<64 cells> <side> <move>`` line per entry, ``;`` starts a comment line.
"""

from __future__ import annotations

from pathlib import Path

from .board import STONE, EMPTY, parse_cell, parse_position

BOOK_FILE = Path(__file__).resolve().parent / "book.txt"


def _key(board: list[str], side: str) -> str:
    return "".join(EMPTY if c == STONE else c for c in board) + side


class Book:
    def __init__(self, entries: dict[str, int]) -> None:
        self.entries = entries

    @classmethod
    def load(cls, path: Path = BOOK_FILE) -> Book:
        entries: dict[str, int] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                line = line.strip()
                if not line or line.startswith(";"):
                    continue
                cells, side, move = line.split()
                board, side = parse_position(f"{cells} {side}")
                entries[_key(board, side)] = parse_cell(move)
        return cls(entries)

    def lookup(self, board: list[str], side: str) -> int | None:
        return self.entries.get(_key(board, side))

    def __len__(self) -> int:
        return len(self.entries)
