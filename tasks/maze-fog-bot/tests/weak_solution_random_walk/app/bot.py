"""Shortcut (weak): a fixed-seed random walk that avoids walls it can see. No map, no
keys, no plan: it wins only small levels by luck, the same luck on every run."""

import json
import random
import sys

MOVES = {"N": "n", "E": "e", "S": "s", "W": "w"}


def main():
    rng = random.Random(7)
    for line in sys.stdin:
        obs = json.loads(line)
        if "result" in obs:
            break
        open_moves = [m for m, k in MOVES.items() if obs[k] != "#"] or list(MOVES)
        sys.stdout.write(rng.choice(open_moves) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
