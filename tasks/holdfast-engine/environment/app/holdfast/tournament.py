"""Local tournament runner: the engine (over the protocol) against the sparring bots.

    python3 -m holdfast.tournament --games 10 --opponent greedy

Each game starts from a board with random stones (180-degree symmetric, never
in the centre); colours alternate. Prints one line per game and a summary.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

from .board import CELLS, cell_name, index
from .bots import BOTS
from .game import GameState
from .protocol import move_name, parse_move
from .scoring import final_result

ENGINE = Path(__file__).resolve().parent.parent / "engine.py"
CENTRE = {index(3, 3), index(3, 4), index(4, 3), index(4, 4)}


def random_stones(rng: random.Random, pairs: int) -> tuple[int, ...]:
    stones: set[int] = set()
    while len(stones) < 2 * pairs:
        cell = rng.randrange(CELLS)
        mirror = CELLS - 1 - cell
        if cell in CENTRE or mirror in CENTRE or cell == mirror:
            continue
        stones.update((cell, mirror))
    return tuple(sorted(stones))


class EngineProcess:
    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def close(self) -> None:
        try:
            self.ask("quit")
        except (BrokenPipeError, OSError):
            pass
        self.proc.wait(timeout=5)


def play_game(engine: EngineProcess, bot, engine_side: str, stones: tuple[int, ...], move_ms: int) -> dict:
    state = GameState.start(stones)
    longest = 0.0
    while not state.is_over():
        if state.side == engine_side:
            engine.ask(f"position {state}")
            started = time.monotonic()
            reply = engine.ask(f"go {move_ms}")
            longest = max(longest, time.monotonic() - started)
            if not reply.startswith("move "):
                return {"result": "forfeit", "reason": reply}
            move = parse_move(reply.split()[1])
            if move not in state.options():
                return {"result": "forfeit", "reason": f"illegal {move_name(move)}"}
        else:
            move = bot.choose(state, move_ms)
        state = state.play(move)
    result = final_result(state.board)
    return {"result": result.winner, "score": (result.black, result.white), "longest": longest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--opponent", choices=sorted(BOTS), default="greedy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--move-ms", type=int, default=1000)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    engine = EngineProcess([sys.executable, str(ENGINE)])
    points = 0.0
    try:
        for number in range(args.games):
            stones = random_stones(rng, rng.randint(1, 3))
            side = "X" if number % 2 == 0 else "O"
            bot = BOTS[args.opponent]() if args.opponent != "random" else BOTS["random"](args.seed + number)
            outcome = play_game(engine, bot, side, stones, args.move_ms)
            if outcome["result"] == side:
                points += 1
            elif outcome["result"] == "draw":
                points += 0.5
            names = " ".join(cell_name(s) for s in stones)
            print(f"game {number + 1}: engine {side} stones [{names}] -> {outcome}")
    finally:
        engine.close()
    print(f"engine scored {points}/{args.games} against {args.opponent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
