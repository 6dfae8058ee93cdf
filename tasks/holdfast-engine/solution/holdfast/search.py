"""Iterative-deepening negamax with alpha-beta pruning."""

from __future__ import annotations

import time

from .board import EMPTY, opponent
from .config import MAX_DEPTH, NODES_PER_SECOND, SAFETY_FACTOR, WIN_SCORE
from .evaluate import WEIGHTS, evaluate
from .rules import apply_move, legal_moves
from .scoring import margin


class OutOfTime(Exception):
    """The deadline passed during a search."""


class Searcher:
    """One search: a node budget (so the same position and budget give the same
    move on any machine) and a wall-clock deadline as a safety net."""

    def __init__(self, deadline: float, node_limit: float = float("inf")) -> None:
        self.deadline = deadline
        self.node_limit = node_limit
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise OutOfTime
        if self.nodes & 63 == 0 and time.process_time() > self.deadline:
            raise OutOfTime

    def negamax(self, board: list[str], side: str, depth: int, alpha: int, beta: int, passed: bool = False) -> int:
        self._tick()
        moves = legal_moves(board, side)
        if not moves:
            if passed:
                return WIN_SCORE * _sign(margin(board, side)) + margin(board, side)
            return -self.negamax(board, opponent(side), depth, -beta, -alpha, True)
        if depth == 0:
            return evaluate(board, side)
        best = -WIN_SCORE * 2
        for move in ordered(moves):
            score = -self.negamax(apply_move(board, move, side), opponent(side), depth - 1, -beta, -alpha)
            if score > best:
                best = score
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        return best

    def root(self, board: list[str], side: str, depth: int, first: int | None) -> tuple[int, int]:
        moves = ordered(legal_moves(board, side))
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        best_move, best = moves[0], -WIN_SCORE * 2
        alpha, beta = -WIN_SCORE * 2, WIN_SCORE * 2
        for move in moves:
            score = -self.negamax(apply_move(board, move, side), opponent(side), depth - 1, -beta, -alpha)
            if score > best:
                best, best_move = score, move
            alpha = max(alpha, best)
        return best_move, best


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def ordered(moves: list[int]) -> list[int]:
    """Corners first, X-squares last: better cutoffs."""
    return sorted(moves, key=lambda cell: -WEIGHTS[cell])


def best_move(board: list[str], side: str, budget_s: float, min_depth: int = 1) -> tuple[int, int]:
    """The best move found within about ``budget_s`` seconds and the depth reached.

    The budget is turned into a node budget (``config.NODES_PER_SECOND``);
    the CPU clock only stops a search that runs far over it (so games replay alike
    however loaded the machine is).
    """
    moves = legal_moves(board, side)
    if len(moves) == 1:
        return moves[0], 0
    nodes_left = budget_s * NODES_PER_SECOND
    deadline = time.process_time() + budget_s * SAFETY_FACTOR
    choice = ordered(moves)[0]
    reached = 0
    empties = board.count(EMPTY)
    for depth in range(1, min(MAX_DEPTH, empties) + 1):
        unlimited = depth <= min_depth
        searcher = Searcher(float("inf") if unlimited else deadline, float("inf") if unlimited else nodes_left)
        try:
            choice, _ = searcher.root(board, side, depth, choice)
        except OutOfTime:
            break
        reached = depth
        nodes_left -= searcher.nodes
        if searcher.nodes * 3 > nodes_left:
            break  # the next depth would not finish
    return choice, reached
