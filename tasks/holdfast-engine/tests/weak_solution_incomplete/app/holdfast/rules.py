"""Move legality and move application (RULEBOOK.md sections 3 and 4)."""

from __future__ import annotations

from .board import CELLS, EMPTY, ORTHOGONAL_NEIGHBOURS, RAYS, STONE, opponent


def is_anchored(board: list[str], cell: int) -> bool:
    """A disc sharing an edge with a stone is anchored: it can never be flipped."""
    return any(board[n] == STONE for n in ORTHOGONAL_NEIGHBOURS[cell])


def captured_run(board: list[str], ray: list[int], side: str) -> list[int]:
    """The opponent discs ``side`` would flip along one ray, or ``[]``.

    The run must be one or more opponent discs closed by a disc of ``side``;
    an empty cell, a stone or the edge leaves it open, and an anchored disc
    anywhere in the run protects the whole run.
    """
    other = opponent(side)
    run: list[int] = []
    for cell in ray:
        content = board[cell]
        if content == other:
            if is_anchored(board, cell):
                return []
            run.append(cell)
            continue
        if content == side and run:
            return run
        return []
    return []


def flips_for(board: list[str], cell: int, side: str) -> list[int]:
    """Every disc flipped if ``side`` plays on ``cell`` (empty when illegal)."""
    if board[cell] != EMPTY:
        return []
    flipped: list[int] = []
    for ray in RAYS[cell]:
        flipped.extend(captured_run(board, ray, side))
    return flipped


def is_legal(board: list[str], cell: int, side: str) -> bool:
    if board[cell] != EMPTY:
        return False
    return any(captured_run(board, ray, side) for ray in RAYS[cell])


def legal_moves(board: list[str], side: str) -> list[int]:
    """The cells ``side`` may play on, in index order."""
    return [cell for cell in range(CELLS) if board[cell] == EMPTY and is_legal(board, cell, side)]


def apply_move(board: list[str], cell: int, side: str) -> list[str]:
    """A new board after ``side`` plays ``cell``; raises ValueError when illegal."""
    flipped = flips_for(board, cell, side)
    if not flipped:
        raise ValueError("illegal move")
    result = list(board)
    result[cell] = side
    for target in flipped:
        result[target] = side
    return result


def count(board: list[str], side: str) -> int:
    return sum(1 for content in board if content == side)
