"""Seeded maze levels for maze-fog-bot (perfect, braided, keys/doors, teleporters, mixed)."""

import random
from collections import deque

DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def carve(rng, grid, top, left, h, w):
    """Carve a perfect maze of h x w cells into grid; cell (i, j) is at (top+2i+1, left+2j+1)."""
    start = (rng.randrange(h), rng.randrange(w))
    seen = {start}
    stack = [start]
    grid[top + 2 * start[0] + 1][left + 2 * start[1] + 1] = "."
    while stack:
        i, j = stack[-1]
        options = [(i + di, j + dj) for di, dj in DIRS
                   if 0 <= i + di < h and 0 <= j + dj < w and (i + di, j + dj) not in seen]
        if not options:
            stack.pop()
            continue
        ni, nj = rng.choice(options)
        seen.add((ni, nj))
        grid[top + 2 * ni + 1][left + 2 * nj + 1] = "."
        grid[top + i + ni + 1][left + j + nj + 1] = "."
        stack.append((ni, nj))


def blank(rows, cols):
    return [["#"] * cols for _ in range(rows)]


def neighbours(grid, p):
    r, c = p
    for dr, dc in DIRS:
        q = (r + dr, c + dc)
        if 0 <= q[0] < len(grid) and 0 <= q[1] < len(grid[0]):
            yield q


def braid(rng, grid, fraction):
    """Knock out a wall at a fraction of dead ends (never the outer border)."""
    rows, cols = len(grid), len(grid[0])
    for r in range(1, rows - 1, 2):
        for c in range(1, cols - 1, 2):
            if grid[r][c] == "#":
                continue
            walls = [(r + dr, c + dc) for dr, dc in DIRS if grid[r + dr][c + dc] == "#"
                     and 0 < r + 2 * dr < rows - 1 and 0 < c + 2 * dc < cols - 1
                     and grid[r + 2 * dr][c + 2 * dc] != "#"]
            open_sides = sum(grid[r + dr][c + dc] != "#" for dr, dc in DIRS)
            if open_sides == 1 and walls and rng.random() < fraction:
                wr, wc = rng.choice(walls)
                grid[wr][wc] = "."


def reach(grid, start, blocked=(), twin=None):
    """BFS distances from start over non-wall cells, teleporting on pads."""
    twin = twin or {}
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for q in neighbours(grid, p):
            if grid[q[0]][q[1]] == "#" or q in blocked:
                continue
            q = twin.get(q, q)
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def path(grid, start, goal, twin=None):
    twin = twin or {}
    prev = {start: None}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        if p == goal:
            break
        for q in neighbours(grid, p):
            if grid[q[0]][q[1]] == "#":
                continue
            q = twin.get(q, q)
            if q not in prev:
                prev[q] = p
                queue.append(q)
    out, p = [], goal
    while p is not None:
        out.append(p)
        p = prev[p]
    return out[::-1]


def cells(grid, symbol="."):
    return [(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == symbol]


def place_far(rng, grid, start, choices, twin=None):
    dist = reach(grid, start, twin=twin)
    ranked = sorted((p for p in choices if p in dist), key=lambda p: dist[p])
    return rng.choice(ranked[int(len(ranked) * 0.7):])


def add_doors(rng, grid, start, goal, count, twin=None):
    """Doors on corridor cells of the start->exit path; each key reachable with earlier doors open."""
    route = path(grid, start, goal, twin)
    corridor = [p for p in route[2:-2]
                if grid[p[0]][p[1]] == "." and sum(grid[q[0]][q[1]] != "#" for q in neighbours(grid, p)) == 2
                and p not in (twin or {})]
    if len(corridor) < count:
        return 0
    picks = sorted(rng.sample(range(len(corridor)), count))
    doors = [corridor[i] for i in picks]
    on_route = set(route)
    for i, door in enumerate(doors):
        blocked = set(doors[i:])
        region = reach(grid, start, blocked, twin)
        earlier = reach(grid, start, set(doors[max(0, i - 1):]), twin) if i else {}
        spots = [p for p in region if grid[p[0]][p[1]] == "." and p not in on_route
                 and p not in earlier and p not in (twin or {})]
        if not spots:
            spots = [p for p in region if grid[p[0]][p[1]] == "." and p not in on_route
                     and p not in (twin or {})]
        if not spots:
            return 0
        key = max(spots, key=lambda p: region[p] + rng.random() * 6)
        grid[key[0]][key[1]] = "abcd"[i]
    for i, door in enumerate(doors):
        grid[door[0]][door[1]] = "ABCD"[i]
    return count


def finish(grid, start, goal):
    grid[start[0]][start[1]] = "S"
    grid[goal[0]][goal[1]] = "E"
    return "\n".join("".join(row) for row in grid) + "\n"


def perfect_level(rng, h, w):
    grid = blank(2 * h + 1, 2 * w + 1)
    carve(rng, grid, 0, 0, h, w)
    start = rng.choice(cells(grid))
    goal = place_far(rng, grid, start, cells(grid))
    return finish(grid, start, goal)


def braided_level(rng, h, w):
    grid = blank(2 * h + 1, 2 * w + 1)
    carve(rng, grid, 0, 0, h, w)
    braid(rng, grid, 0.9)
    rows, cols = len(grid), len(grid[0])
    inner = [(r, c) for r, c in cells(grid)
             if rows // 3 <= r <= 2 * rows // 3 and cols // 3 <= c <= 2 * cols // 3]
    goal = rng.choice(inner)
    border = [(r, c) for r, c in cells(grid) if r in (1, rows - 2) or c in (1, cols - 2)]
    start = rng.choice(border)
    return finish(grid, start, goal)


def door_level(rng, h, w, doors, braid_fraction=0.0):
    while True:
        grid = blank(2 * h + 1, 2 * w + 1)
        carve(rng, grid, 0, 0, h, w)
        start = rng.choice(cells(grid))
        goal = place_far(rng, grid, start, cells(grid))
        if add_doors(rng, grid, start, goal, doors):
            braid(rng, grid, braid_fraction)
            return finish(grid, start, goal)


def teleport_level(rng, h, w, doors=0, braid_fraction=0.0, decoys=1):
    """Two separate mazes side by side, joined only by pad pair '1'."""
    while True:
        grid = blank(2 * h + 1, 4 * w + 1)
        carve(rng, grid, 0, 0, h, w)
        carve(rng, grid, 0, 2 * w, h, w)
        braid(rng, grid, braid_fraction)
        for r in range(len(grid)):  # keep the halves apart even after braiding
            grid[r][2 * w] = "#"
        left = [p for p in cells(grid) if p[1] < 2 * w]
        right = [p for p in cells(grid) if p[1] > 2 * w]
        start = rng.choice(left)
        pad_a = place_far(rng, grid, start, [p for p in left if p != start])
        pad_b = rng.choice(right)
        grid[pad_a[0]][pad_a[1]] = grid[pad_b[0]][pad_b[1]] = "1"
        twin = {pad_a: pad_b, pad_b: pad_a}
        for digit in "23456789"[:decoys]:
            side = rng.choice([left, right])
            spots = [p for p in side if grid[p[0]][p[1]] == "." and p != start]
            x, y = rng.sample(spots, 2)
            grid[x[0]][x[1]] = grid[y[0]][y[1]] = digit
            twin[x], twin[y] = y, x
        goal = place_far(rng, grid, pad_b, [p for p in right if grid[p[0]][p[1]] == "."], twin)
        if doors and not add_doors(rng, grid, start, goal, doors, twin):
            continue
        text = finish(grid, start, goal)
        if goal in reach(grid, start, twin=twin):
            return text


HIDDEN_PER_CATEGORY = 20


def hidden_levels(seed, count=HIDDEN_PER_CATEGORY):
    """{category: [level text, ...]}, `count` levels per category."""
    rng = random.Random(seed)
    return {
        "perfect_mazes": [perfect_level(rng, rng.randint(7, 11), rng.randint(9, 15)) for _ in range(count)],
        "braided_mazes": [braided_level(rng, rng.randint(8, 11), rng.randint(10, 15)) for _ in range(count)],
        "keys_and_doors": [door_level(rng, rng.randint(7, 10), rng.randint(9, 14), rng.randint(1, 3))
                           for _ in range(count)],
        "teleporters": [teleport_level(rng, rng.randint(6, 9), rng.randint(6, 8), decoys=rng.randint(0, 2))
                        for _ in range(count)],
        "mixed_large": [teleport_level(rng, rng.randint(10, 12), rng.randint(9, 11), doors=rng.randint(1, 2),
                                       braid_fraction=0.6, decoys=rng.randint(1, 2)) for _ in range(count)],
    }


def public_levels():
    rng = random.Random(20240601)
    return [perfect_level(rng, 4, 6), perfect_level(rng, 6, 9), perfect_level(rng, 8, 12)]
