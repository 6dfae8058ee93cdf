"""Game records: a small text format for finished or unfinished games.

    [Stones "b3 g6"]
    [X "engine"]
    [O "greedy"]
    [Result "41-23 X"]
    f5 f6 e6 f4 pass c3 ...

Headers are ``[Name "value"]`` lines; the moves follow, separated by
whitespace, ``pass`` where a player passed. ``replay`` checks every move
against the rules and returns the states in order.
"""

from __future__ import annotations

import re
from pathlib import Path

from .board import PositionError, cell_name, parse_cell
from .game import PASS, GameState
from .scoring import final_result

HEADER = re.compile(r'^\[(\w+)\s+"([^"]*)"\]$')


class RecordError(ValueError):
    """A record could not be read or replayed."""


class Record:
    def __init__(self, stones: tuple[int, ...] = (), moves: list[int] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        self.stones = tuple(sorted(stones))
        self.moves = list(moves or [])
        self.headers = dict(headers or {})

    @classmethod
    def parse(cls, text: str) -> Record:
        headers: dict[str, str] = {}
        tokens: list[str] = []
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith(";"):
                continue
            match = HEADER.match(line)
            if match:
                headers[match.group(1)] = match.group(2)
                continue
            if line.startswith("["):
                raise RecordError(f"line {number}: bad header {line!r}")
            tokens.extend(line.split())
        try:
            stones = tuple(parse_cell(name) for name in headers.get("Stones", "").split())
            moves = [PASS if token.lower() == "pass" else parse_cell(token) for token in tokens]
        except PositionError as exc:
            raise RecordError(str(exc)) from exc
        return cls(stones, moves, headers)

    @classmethod
    def load(cls, path: str | Path) -> Record:
        return cls.parse(Path(path).read_text())

    def replay(self) -> list[GameState]:
        """Every state from the start to after the last move; raises RecordError on an illegal move."""
        state = GameState.start(self.stones)
        states = [state]
        for number, move in enumerate(self.moves, 1):
            if move not in state.options():
                name = "pass" if move == PASS else cell_name(move)
                raise RecordError(f"move {number} ({name}) is not legal for {state.side}")
            state = state.play(move)
            states.append(state)
        return states

    def final(self) -> GameState:
        return self.replay()[-1]

    def result_text(self) -> str:
        state = self.final()
        if not state.is_over():
            return "*"
        result = final_result(state.board)
        return f"{result.black}-{result.white} {result.winner}"

    def format(self) -> str:
        headers = dict(self.headers)
        headers["Stones"] = " ".join(cell_name(s) for s in self.stones)
        headers.setdefault("Result", self.result_text())
        lines = [f'[{name} "{value}"]' for name, value in headers.items()]
        names = ["pass" if m == PASS else cell_name(m) for m in self.moves]
        for start in range(0, len(names), 10):
            lines.append(" ".join(names[start:start + 10]))
        return "\n".join(lines) + "\n"

    def append(self, move: int) -> None:
        self.moves.append(move)
