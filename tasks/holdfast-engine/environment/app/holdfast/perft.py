"""Move-path counting, the classic move-generator test.

    python3 -m holdfast.perft "<64 cells> <side>" 4

prints the number of move sequences of each length from the position (a pass
counts as a move; a finished game has no continuations). Counts from two
implementations of the rules must agree exactly.
"""

from __future__ import annotations

import sys

from .game import GameState
from .protocol import move_name


def perft(state: GameState, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in state.options():
        total += perft(state.play(move), depth - 1)
    return total


def divide(state: GameState, depth: int) -> dict[str, int]:
    """Counts split by the first move."""
    return {move_name(m): perft(state.play(m), depth - 1) for m in state.options()}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    state = GameState.parse(args[0]) if len(args[0].split()) == 2 else GameState.start()
    depth = int(args[1]) if len(args) == 2 else 3
    for ply in range(1, depth + 1):
        print(f"perft {ply}: {perft(state, ply)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
