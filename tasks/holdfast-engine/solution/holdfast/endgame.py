"""Exact endgame solver: plays for the best final margin once few cells are empty."""

from __future__ import annotations

import time

from .board import EMPTY, opponent
from .config import SAFETY_FACTOR, SOLVER_NODES_PER_SECOND
from .rules import apply_move, legal_moves
from .scoring import margin
from .search import OutOfTime, ordered


class Solver:
    def __init__(self, deadline: float, node_limit: float) -> None:
        self.deadline = deadline
        self.node_limit = node_limit
        self.nodes = 0

    def solve(self, board: list[str], side: str, alpha: int, beta: int, passed: bool = False) -> int:
        """The exact final margin for ``side`` with best play from both."""
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise OutOfTime
        if self.nodes & 1023 == 0 and time.process_time() > self.deadline:
            raise OutOfTime
        moves = legal_moves(board, side)
        if not moves:
            if passed:
                return margin(board, side)
            return -self.solve(board, opponent(side), -beta, -alpha, True)
        best = -1000
        for move in ordered(moves):
            score = -self.solve(apply_move(board, move, side), opponent(side), -beta, -alpha)
            if score > best:
                best = score
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        return best


def solve_move(board: list[str], side: str, budget_s: float) -> tuple[int, int] | None:
    """(best move, exact margin), or None when the solve does not finish in time."""
    solver = Solver(time.process_time() + budget_s * SAFETY_FACTOR, budget_s * SOLVER_NODES_PER_SECOND)
    best_move, best = None, -1000
    alpha = -1000
    try:
        for move in ordered(legal_moves(board, side)):
            score = -solver.solve(apply_move(board, move, side), opponent(side), -1000, -alpha)
            if score > best:
                best, best_move = score, move
            alpha = max(alpha, best)
    except OutOfTime:
        return None
    if best_move is None:
        return None
    return best_move, best


def empties(board: list[str]) -> int:
    return board.count(EMPTY)
