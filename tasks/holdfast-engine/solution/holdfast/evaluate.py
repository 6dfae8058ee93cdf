"""Static evaluation of middle-game positions, from the side to move's view."""

from __future__ import annotations

from .board import CELLS, CORNERS, EMPTY, STONE, opponent
from .rules import is_anchored, legal_moves

#: Positional weights by cell (rank 1 first), the classic corner/X-square pattern.
WEIGHTS = (
    120, -20, 20, 5, 5, 20, -20, 120,
    -20, -40, -5, -5, -5, -5, -40, -20,
    20, -5, 15, 3, 3, 15, -5, 20,
    5, -5, 3, 3, 3, 3, -5, 5,
    5, -5, 3, 3, 3, 3, -5, 5,
    20, -5, 15, 3, 3, 15, -5, 20,
    -20, -40, -5, -5, -5, -5, -40, -20,
    120, -20, 20, 5, 5, 20, -20, 120,
)
MOBILITY_WEIGHT = 6
ANCHOR_WEIGHT = 25
CORNER_WEIGHT = 40
SURVIVAL_WEIGHT = 12


def positional(board: list[str], side: str) -> int:
    other = opponent(side)
    total = 0
    for cell in range(CELLS):
        content = board[cell]
        if content == side:
            total += WEIGHTS[cell]
        elif content == other:
            total -= WEIGHTS[cell]
    return total


def anchors(board: list[str], side: str) -> int:
    """Own anchored discs minus the opponent's (they can never be flipped)."""
    other = opponent(side)
    total = 0
    for cell in range(CELLS):
        content = board[cell]
        if content in (EMPTY, STONE):
            continue
        if is_anchored(board, cell):
            total += 1 if content == side else -1 if content == other else 0
    return total


def corners(board: list[str], side: str) -> int:
    other = opponent(side)
    return sum(1 if board[c] == side else -1 if board[c] == other else 0 for c in CORNERS)


def mobility(board: list[str], side: str) -> int:
    return len(legal_moves(board, side)) - len(legal_moves(board, opponent(side)))


def survival(board: list[str], side: str) -> int:
    """Penalty for being close to a wipe-out (few discs left), bonus for the opponent being so."""
    own, theirs = board.count(side), board.count(opponent(side))
    return -max(0, 6 - own) ** 2 + max(0, 6 - theirs) ** 2


def evaluate(board: list[str], side: str) -> int:
    """Higher is better for ``side``."""
    return (
        positional(board, side)
        + SURVIVAL_WEIGHT * survival(board, side)
        + MOBILITY_WEIGHT * mobility(board, side)
        + ANCHOR_WEIGHT * anchors(board, side)
        + CORNER_WEIGHT * corners(board, side)
    )
