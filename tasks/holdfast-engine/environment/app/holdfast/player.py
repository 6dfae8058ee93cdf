"""Move choice: the book, then the exact solver near the end, else the search."""

from __future__ import annotations

from . import config
from .clock import plan_seconds
from .book import Book
from .endgame import empties, solve_move
from .game import PASS, GameState
from .search import best_move


class Player:
    def __init__(self, use_book: bool = config.USE_BOOK) -> None:
        self.book = Book.load() if use_book else Book({})
        self.last_info = ""

    def choose(self, state: GameState, budget_ms: int) -> int:
        """A move for the side to move (PASS when it has none)."""
        moves = state.moves()
        if not moves:
            return PASS
        if len(moves) == 1:
            self.last_info = "forced"
            return moves[0]
        budget = plan_seconds(budget_ms, empties(state.board))
        booked = self.book.lookup(state.board, state.side)
        if booked is not None:
            self.last_info = "book"
            return booked
        if empties(state.board) <= config.ENDGAME_EMPTIES:
            solved = solve_move(state.board, state.side, budget / 2)
            if solved is not None:
                self.last_info = f"solved margin {solved[1]}"
                return solved[0]
            budget /= 2
        move, depth = best_move(state.board, state.side, budget, min_depth=1)
        self.last_info = f"depth {depth}"
        return move
