"""Iterative-deepening negamax with alpha-beta pruning."""

from __future__ import annotations

import time

from .board import EMPTY, opponent
from .config import MAX_DEPTH, WIN_SCORE
from .evaluate import WEIGHTS, evaluate
from .rules import apply_move, legal_moves
from .scoring import margin


class OutOfTime(Exception):
    """The deadline passed during a search."""


class Searcher:
    """One search: a deadline and a node counter."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes & 255 == 0 and time.monotonic() > self.deadline:
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
    """The best move found within ``budget_s`` seconds and the depth reached."""
    moves = legal_moves(board, side)
    if len(moves) == 1:
        return moves[0], 0
    deadline = time.monotonic() + budget_s
    choice = ordered(moves)[0]
    reached = 0
    empties = board.count(EMPTY)
    start = time.monotonic()
    for depth in range(1, min(MAX_DEPTH, empties) + 1):
        searcher = Searcher(deadline if depth > min_depth else float("inf"))
        try:
            choice, _ = searcher.root(board, side, depth, choice)
        except OutOfTime:
            break
        reached = depth
        spent = time.monotonic() - start
        if depth >= min_depth and spent * 4 > deadline - time.monotonic():
            break  # the next depth would not finish
    return choice, reached
