"""Weak baseline (public checks only), installed as /app/bot.py: a right-hand
wall follower. Doors and teleporter pads count as walls. It wins every perfect
maze (the public levels are perfect mazes) and little else."""

import json
import sys

ORDER = "NESW"


def main():
    heading = 0
    for line in sys.stdin:
        obs = json.loads(line)
        if "result" in obs:
            break
        for turn in (1, 0, 3, 2):  # right, straight, left, back
            d = (heading + turn) % 4
            if obs[ORDER[d].lower()] in ".SEabcd":
                heading = d
                break
        sys.stdout.write(ORDER[heading] + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
