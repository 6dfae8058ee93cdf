"""Final scoring (RULEBOOK.md section 6)."""

from __future__ import annotations

from typing import NamedTuple

from .board import BLACK, CORNERS, EMPTY, WHITE


class Result(NamedTuple):
    black: int
    white: int
    winner: str  # "X", "O" or "draw"


def base_score(board: list[str], side: str) -> int:
    """One point per disc, one extra per corner held."""
    discs = sum(1 for content in board if content == side)
    corners = sum(1 for cell in CORNERS if board[cell] == side)
    return discs + corners


def final_result(board: list[str]) -> Result:
    """Scores and winner of a finished game: empty cells go to the leader."""
    black = base_score(board, BLACK)
    white = base_score(board, WHITE)
    empties = sum(1 for content in board if content == EMPTY)
    if black > white:
        black += empties
    elif white > black:
        white += empties
    if black > white:
        winner = BLACK
    elif white > black:
        winner = WHITE
    else:
        winner = "draw"
    return Result(black, white, winner)


def margin(board: list[str], side: str) -> int:
    """Final score of ``side`` minus its opponent's."""
    result = final_result(board)
    return result.black - result.white if side == BLACK else result.white - result.black
