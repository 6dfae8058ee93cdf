"""Referee for maze-fog-bot: plays one level against a bot process.

Rules (same as the workspace engine): '#' wall, '.' floor, 'S' start, 'E' exit,
'a'-'d' keys (picked up on entry, the cell becomes '.'), 'A'-'D' doors (enterable
only while holding the matching key), '1'-'9' teleporter pads in pairs (entering
a pad puts the bot on the other pad with the same digit). Bumping into a wall or
a locked door costs a step. The budget is 4 x the number of non-wall cells.
"""

import json
import os
import select
import subprocess
import time

MOVES = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}


def parse(text):
    grid = [list(line) for line in text.splitlines() if line.strip()]
    pads, start = {}, None
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == "S":
                start = (r, c)
            elif ch.isdigit():
                pads.setdefault(ch, []).append((r, c))
    twin = {}
    for cells in pads.values():
        if len(cells) == 2:
            twin[cells[0]], twin[cells[1]] = cells[1], cells[0]
    return grid, start, twin


def open_cells(grid):
    return sum(ch != "#" for row in grid for ch in row)


class LineReader:
    def __init__(self, fd):
        self.fd, self.buf = fd, b""

    def readline(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("bot too slow")
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                raise TimeoutError("bot too slow")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("bot exited")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "replace").strip()


def play(level_text, bot_cmd, cwd=None, time_limit=20.0, env=None, spawn=None, stop=None):
    """Return {"won": bool, "steps": int, "open": int, "reason": str}.

    ``spawn(argv, cwd=, env=, stdin=, stdout=, stderr=)`` starts the bot
    (default :class:`subprocess.Popen`; the verifier passes the kit's
    ``popen_untrusted``) and ``stop(proc)`` ends it and whatever it left behind
    (default: kill it if it is still running)."""
    grid, pos, twin = parse(level_text)
    total = open_cells(grid)
    budget = steps_left = 4 * total
    keys = set()
    spawn = spawn or subprocess.Popen
    proc = spawn(bot_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                 stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    reader = LineReader(proc.stdout.fileno())
    deadline = time.monotonic() + time_limit
    result = {"won": False, "steps": 0, "open": total, "reason": "budget spent"}

    def cell(p):
        r, c = p
        if 0 <= r < len(grid) and 0 <= c < len(grid[r]):
            return grid[r][c]
        return "#"

    def send(obj):
        proc.stdin.write((json.dumps(obj) + "\n").encode())
        proc.stdin.flush()

    try:
        while steps_left > 0:
            r, c = pos
            send({"pos": [r, c], "here": cell(pos), "n": cell((r - 1, c)), "e": cell((r, c + 1)),
                  "s": cell((r + 1, c)), "w": cell((r, c - 1)), "keys": "".join(sorted(keys)),
                  "steps_left": steps_left})
            move = reader.readline(deadline).upper()
            if move not in MOVES:
                result["reason"] = f"invalid move {move[:20]!r}"
                break
            steps_left -= 1
            dr, dc = MOVES[move]
            target = (r + dr, c + dc)
            ch = cell(target)
            if ch == "#" or (ch in "ABCD" and ch.lower() not in keys):
                continue
            pos = target
            if ch in "abcd":
                keys.add(ch)
                grid[pos[0]][pos[1]] = "."
            elif ch.isdigit() and pos in twin:
                pos = twin[pos]
            if ch == "E":
                result.update(won=True, reason="reached the exit")
                break
        result["steps"] = budget - steps_left
        try:
            send({"result": "win" if result["won"] else "lose", "steps": result["steps"]})
        except OSError:
            pass
    except (TimeoutError, EOFError, OSError, BrokenPipeError) as exc:
        result["reason"] = str(exc) or type(exc).__name__
        result["steps"] = budget - steps_left
    finally:
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if stop is not None:
            stop(proc)
        try:
            proc.stdout.close()
        except OSError:
            pass
    return result
