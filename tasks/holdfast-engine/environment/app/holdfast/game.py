"""Turn order, passing and the end of the game (RULEBOOK.md section 5)."""

from __future__ import annotations

from .board import BLACK, format_position, opponent, parse_position, starting_board
from .rules import apply_move, legal_moves

PASS = -1


class GameState:
    """A position plus the side to move; immutable in spirit (``play`` returns a new one)."""

    __slots__ = ("board", "side")

    def __init__(self, board: list[str], side: str = BLACK) -> None:
        self.board = board
        self.side = side

    @classmethod
    def start(cls, stones: tuple[int, ...] = ()) -> GameState:
        return cls(starting_board(stones), BLACK)

    @classmethod
    def parse(cls, text: str) -> GameState:
        board, side = parse_position(text)
        return cls(board, side)

    def __str__(self) -> str:
        return format_position(self.board, self.side)

    def moves(self) -> list[int]:
        """Legal placements for the side to move (empty: it must pass or the game is over)."""
        return legal_moves(self.board, self.side)

    def is_over(self) -> bool:
        """Neither player has a placement."""
        return not legal_moves(self.board, self.side)

    def must_pass(self) -> bool:
        return not self.moves() and not self.is_over()

    def play(self, move: int) -> GameState:
        """The state after ``move`` (a cell, or PASS when passing is the only option)."""
        if move == PASS:
            if not self.must_pass():
                raise ValueError("pass is only legal when no placement is")
            return GameState(self.board, opponent(self.side))
        return GameState(apply_move(self.board, move, self.side), opponent(self.side))

    def options(self) -> list[int]:
        """What the side to move may do: its placements, or ``[PASS]``, or ``[]`` at the end."""
        moves = self.moves()
        if moves:
            return moves
        return [] if self.is_over() else [PASS]
