"""Frontier-exploration bot for the fog maze.

Keeps a map of everything seen, remembers where each teleporter pad leads, and
always heads for the nearest useful target: the exit once seen, otherwise the
nearest known cell it has not stood on (or an untried pad, or a door it now
holds the key for). Steps straight into an unexplored neighbour without a
search when it can (depth-first), so most turns cost no BFS.
"""

import json
import sys
from collections import deque

DELTA = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}


class Bot:
    def __init__(self):
        self.known = {}        # cell -> symbol
        self.visited = set()   # cells stood on (their neighbours are known)
        self.tele = {}         # pad cell -> where entering it puts us
        self.keys = ""
        self.plan = []
        self.last = None       # (from, move, expected cell)

    def passable(self, sym):
        if sym == "#":
            return False
        if sym in "ABCD":
            return sym.lower() in self.keys
        return True

    def land(self, cell):
        """Where entering `cell` leaves us (None if unknown: an untried pad)."""
        sym = self.known.get(cell)
        if sym is not None and sym.isdigit():
            return self.tele.get(cell)
        return cell

    def is_target(self, cell):
        """Is entering `cell` worth it: the exit, or we end up somewhere unseen?"""
        sym = self.known.get(cell)
        if sym == "E":
            return True
        if sym is not None and sym.isdigit():
            return cell not in self.tele or self.tele[cell] not in self.visited
        return cell not in self.visited

    def search(self, start, want_exit):
        prev = {start: None}
        queue = deque([start])
        while queue:
            p = queue.popleft()
            for move, (dr, dc) in DELTA.items():
                q = (p[0] + dr, p[1] + dc)
                sym = self.known.get(q)
                if sym is None or not self.passable(sym):
                    continue
                goal = (sym == "E") if want_exit else self.is_target(q)
                if goal:
                    moves = [move]
                    node = p
                    while prev[node] is not None:
                        node, m = prev[node]
                        moves.append(m)
                    return moves[::-1]
                dest = self.land(q)
                if dest is None or dest in prev:
                    continue
                prev[dest] = (p, move)
                queue.append(dest)
        return None

    def observe(self, obs):
        pos = tuple(obs["pos"])
        if self.last is not None:
            origin, move, expected = self.last
            sym = self.known.get(expected, "")
            if sym.isdigit() and pos != expected and pos != origin:
                self.tele[expected] = pos
                self.tele[pos] = expected
            if pos != expected and not sym.isdigit():
                self.plan = []
        self.keys = obs["keys"]
        self.known[pos] = obs["here"] if obs["here"] not in "abcd" else "."
        self.visited.add(pos)
        for move, (dr, dc) in DELTA.items():
            self.known[(pos[0] + dr, pos[1] + dc)] = obs[move.lower()]
        return pos

    def choose(self, obs):
        pos = self.observe(obs)
        for move, (dr, dc) in DELTA.items():
            if obs[move.lower()] == "E":
                self.plan = []
                return self.go(pos, move)
        if not self.plan:
            if "E" in self.known.values():
                self.plan = self.search(pos, True) or []
            if not self.plan:
                for move in "NESW":
                    dr, dc = DELTA[move]
                    q = (pos[0] + dr, pos[1] + dc)
                    if self.passable(self.known[q]) and self.is_target(q):
                        return self.go(pos, move)
                self.plan = self.search(pos, False) or [next(
                    m for m in "NESW" if self.passable(self.known[(pos[0] + DELTA[m][0], pos[1] + DELTA[m][1])])
                ) if any(self.passable(obs[m.lower()]) for m in "NESW") else "N"]
        return self.go(pos, self.plan.pop(0))

    def go(self, pos, move):
        dr, dc = DELTA[move]
        self.last = (pos, move, (pos[0] + dr, pos[1] + dc))
        return move


def main():
    bot = Bot()
    for line in sys.stdin:
        obs = json.loads(line)
        if "result" in obs:
            break
        sys.stdout.write(bot.choose(obs) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
