"""The referee protocol: one command per line on stdin, one reply line on stdout.

Commands (see README.md): ``hello``, ``position <cells> <side>``, ``legal``,
``play <move>``, ``score``, ``go [ms]``, ``quit``.
"""

from __future__ import annotations

import sys
from typing import TextIO

from . import __version__, config
from .board import PositionError, cell_name, parse_cell
from .game import PASS, GameState
from .player import Player
from .scoring import final_result


def move_name(move: int) -> str:
    return "pass" if move == PASS else cell_name(move)


def parse_move(text: str) -> int:
    return PASS if text.strip().lower() == "pass" else parse_cell(text)


class Session:
    """The state of one referee connection."""

    def __init__(self) -> None:
        self.state = GameState.start()
        self.player = Player()

    def handle(self, line: str) -> str | None:
        """The reply to one command line; None means quit."""
        words = line.split()
        if not words:
            return ""
        command, args = words[0].lower(), words[1:]
        handler = getattr(self, f"cmd_{command}", None)
        if handler is None:
            return f"error unknown-command {command}"
        try:
            return handler(args)
        except PositionError as exc:
            return f"error bad-position {exc}"
        except (ValueError, IndexError) as exc:
            return f"error {exc}"

    def cmd_hello(self, args: list[str]) -> str:
        return f"hello holdfast {__version__}"

    def cmd_position(self, args: list[str]) -> str:
        self.state = GameState.parse(" ".join(args))
        return "ok"

    def cmd_legal(self, args: list[str]) -> str:
        options = self.state.options()
        if not options:
            return "legal none"
        return "legal " + " ".join(move_name(m) for m in options)

    def cmd_play(self, args: list[str]) -> str:
        move = parse_move(args[0])
        if move not in self.state.options():
            return "error illegal"
        self.state = self.state.play(move)
        return f"position {self.state}"

    def cmd_score(self, args: list[str]) -> str:
        if not self.state.is_over():
            return "error not-over"
        result = final_result(self.state.board)
        return f"score {result.black} {result.white} {result.winner}"

    def cmd_go(self, args: list[str]) -> str:
        budget = int(args[0]) if args else config.DEFAULT_MOVE_MS
        if self.state.is_over():
            return "error game-over"
        return f"move {move_name(self.player.choose(self.state, budget))}"

    def cmd_quit(self, args: list[str]) -> None:
        return None


def serve(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> None:
    session = Session()
    for line in stdin:
        reply = session.handle(line)
        if reply is None:
            break
        stdout.write(reply + "\n")
        stdout.flush()
