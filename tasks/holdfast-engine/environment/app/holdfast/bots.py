"""Simple sparring partners for local testing (not the referee's opponents)."""

from __future__ import annotations

import random

from .board import opponent
from .evaluate import WEIGHTS
from .game import PASS, GameState
from .rules import apply_move, flips_for, legal_moves


class RandomBot:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, budget_ms: int) -> int:
        moves = state.moves()
        return self.rng.choice(moves) if moves else PASS


class GreedyBot:
    """Most discs flipped, ties to the better cell."""

    name = "greedy"

    def choose(self, state: GameState, budget_ms: int) -> int:
        moves = state.moves()
        if not moves:
            return PASS
        return max(moves, key=lambda m: (len(flips_for(state.board, m, state.side)), WEIGHTS[m], -m))


class PositionalBot:
    """One ply: the move leaving the best positional sum, giving the opponent the fewest replies."""

    name = "positional"

    def choose(self, state: GameState, budget_ms: int) -> int:
        moves = state.moves()
        if not moves:
            return PASS
        side = state.side

        def value(move: int) -> tuple[int, int]:
            after = apply_move(state.board, move, side)
            replies = len(legal_moves(after, opponent(side)))
            return (WEIGHTS[move] - 3 * replies, -move)

        return max(moves, key=value)


BOTS = {"random": RandomBot, "greedy": GreedyBot, "positional": PositionalBot}
