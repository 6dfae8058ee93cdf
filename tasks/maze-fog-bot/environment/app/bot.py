"""Maze bot: reads one JSON observation per line on stdin, answers N, E, S or W.

See /app/README.md for the rules. Run a level with
    python3 /app/game/engine.py /app/levels/public_1.txt
"""

import json
import sys


def choose_move(obs):
    # TODO: explore the maze and find the exit
    raise NotImplementedError("choose_move")


def main():
    for line in sys.stdin:
        obs = json.loads(line)
        if "result" in obs:
            break
        sys.stdout.write(choose_move(obs) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
