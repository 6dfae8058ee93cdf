"""Shared helpers for the engine's unit tests (run: python3 -m unittest discover -s tests)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from holdfast.board import EMPTY, index, parse_cell  # noqa: E402


def board_from_rows(*rows: str) -> list[str]:
    """Rows as drawn, rank 8 first, 8 symbols each (spaces ignored)."""
    cleaned = [row.replace(" ", "") for row in rows]
    assert len(cleaned) == 8 and all(len(r) == 8 for r in cleaned), "8 rows of 8 cells"
    board = [EMPTY] * 64
    for rank_from_top, row in enumerate(cleaned):
        for col, symbol in enumerate(row):
            board[index(7 - rank_from_top, col)] = symbol
    return board


def cells(*names: str) -> list[int]:
    return sorted(parse_cell(n) for n in names)
