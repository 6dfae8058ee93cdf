#!/usr/bin/env python3
"""Show what the engine thinks of a position.

    python3 tools/analyse.py "<64 cells> <side>" [--ms 1000]

Prints the diagram, the legal moves with their one-ply evaluation, the move
the player chooses in the budget, and how it decided (book, solver, depth).
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from holdfast.board import opponent, pretty  # noqa: E402
from holdfast.evaluate import evaluate  # noqa: E402
from holdfast.game import GameState  # noqa: E402
from holdfast.player import Player  # noqa: E402
from holdfast.protocol import move_name  # noqa: E402
from holdfast.rules import apply_move  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("position")
    parser.add_argument("--ms", type=int, default=1000)
    args = parser.parse_args()
    state = GameState.parse(args.position)
    print(pretty(state.board))
    print(f"{state.side} to move; over: {state.is_over()}")
    for move in state.moves():
        after = apply_move(state.board, move, state.side)
        print(f"  {move_name(move):4} static {-evaluate(after, opponent(state.side)):6}")
    if state.options():
        player = Player()
        started = time.monotonic()
        choice = player.choose(state, args.ms)
        print(f"choice {move_name(choice)} in {time.monotonic() - started:.2f}s ({player.last_info})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
