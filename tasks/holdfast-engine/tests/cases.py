"""Seeded hidden cases for holdfast-engine, built with the reference rules in reference/.

Positions come from random playouts on boards with random symmetric stones;
each rules category keeps only positions that exercise what it grades (a ray
that reaches a file edge, a run holding an anchored disc, a forced pass, a
finished game with empty cells and stones), so a case is never trivially
right for an engine that only handles the open middle of the board.
"""

from __future__ import annotations

import random

from reference.board import CELLS, EMPTY, index, opponent
from reference.game import GameState
from reference.rules import flips_for, is_anchored, legal_moves
from reference.scoring import base_score

CENTRE = {index(3, 3), index(3, 4), index(4, 3), index(4, 4)}
OFFSETS = (8, 9, 1, -7, -8, -9, -1, 7)


def random_stones(rng: random.Random, pairs: int, near_centre: bool = False) -> tuple[int, ...]:
    """Stones in 180-degree symmetric pairs, never on the centre four."""
    stones: set[int] = set()
    ring = [c for c in range(CELLS) if c not in CENTRE and 2 <= c // 8 <= 5 and 2 <= c % 8 <= 5]
    while len(stones) < 2 * pairs:
        cell = rng.choice(ring) if near_centre and not stones else rng.randrange(CELLS)
        mirror = CELLS - 1 - cell
        if cell in CENTRE or mirror in CENTRE or cell == mirror:
            continue
        stones.update((cell, mirror))
    return tuple(sorted(stones))


def playout(rng: random.Random, stones: tuple[int, ...], plies: int) -> GameState:
    state = GameState.start(stones)
    for _ in range(plies):
        options = state.options()
        if not options:
            break
        state = state.play(rng.choice(options))
    return state


def _wrapping_ray(cell: int, direction: int) -> list[int]:
    ray, current = [], cell + OFFSETS[direction]
    while 0 <= current < CELLS:
        ray.append(current)
        current += OFFSETS[direction]
    return ray


def _loose_flips(board: list[str], cell: int, side: str) -> set[int]:
    """Flips under a careless reading: rays continue across the a/h files and
    anchored discs are stepped over instead of protecting their run."""
    other, flipped = opponent(side), set()
    if board[cell] != EMPTY:
        return flipped
    for d in range(8):
        run: list[int] = []
        for target in _wrapping_ray(cell, d):
            if board[target] == other:
                if not is_anchored(board, target):
                    run.append(target)
                continue
            if board[target] == side and run:
                flipped.update(run)
            break
    return flipped


def _sensitive_moves(state: GameState) -> list[int]:
    """Empty cells where the careless reading and the rules disagree."""
    out = []
    for cell in range(CELLS):
        if state.board[cell] == EMPTY and _loose_flips(state.board, cell, state.side) != set(
            flips_for(state.board, cell, state.side)
        ):
            out.append(cell)
    return out


def _positions(rng: random.Random, wanted, count: int, tries: int = 20000) -> list[GameState]:
    found: list[GameState] = []
    seen: set[str] = set()
    for _ in range(tries):
        if len(found) >= count:
            break
        stones = random_stones(rng, rng.randint(2, 6), near_centre=rng.random() < 0.5)
        state = playout(rng, stones, rng.randint(6, 56))
        key = str(state)
        if key in seen or not wanted(state):
            continue
        seen.add(key)
        found.append(state)
    return found


def legal_cases(rng: random.Random, count: int) -> list[str]:
    """Positions where a file edge or an anchored disc decides some move's legality."""

    def wanted(state: GameState) -> bool:
        if state.is_over():
            return False
        loose = {c for c in range(CELLS) if _loose_flips(state.board, c, state.side)}
        return loose != set(legal_moves(state.board, state.side))

    return [str(p) for p in _positions(rng, wanted, count)]


def apply_cases(rng: random.Random, count: int) -> list[tuple[str, int]]:
    """(position, legal move) pairs where a file edge or an anchored disc changes the flips."""

    def wanted(state: GameState) -> bool:
        return not state.is_over() and any(m in state.moves() for m in _sensitive_moves(state))

    out = []
    for state in _positions(rng, wanted, count):
        moves = [m for m in _sensitive_moves(state) if m in state.moves()]
        out.append((str(state), rng.choice(moves)))
    return out


def pass_cases(rng: random.Random, count: int) -> list[str]:
    """Positions where the side to move must pass while the game goes on."""
    return [str(p) for p in _positions(rng, lambda s: s.must_pass(), count, tries=60000)]


def finished_cases(rng: random.Random, count: int) -> list[str]:
    """Finished games with empty cells left, every other one a close game
    (equal scores before the empty cells, or a lead that only the corners decide)."""
    found: list[str] = []
    while len(found) < count:
        stones = random_stones(rng, rng.randint(1, 6))
        state = playout(rng, stones, 200)
        if not state.is_over() or EMPTY not in state.board:
            continue
        x, o = base_score(state.board, "X"), base_score(state.board, "O")
        discs = state.board.count("X") - state.board.count("O")
        close = x == o or (x > o) != (discs > 0)
        if close or len(found) % 2 == 0:
            found.append(str(state))
    return found


def match_boards(rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """Stone layouts for the matches, every fourth next to the centre; layouts
    where a random game ends within 40 plies (a quick wipe-out decided by the
    stones rather than by play) are drawn again."""
    boards: list[tuple[int, ...]] = []
    while len(boards) < count:
        stones = random_stones(rng, rng.randint(1, 4), near_centre=len(boards) % 4 == 3)
        probe, state, plies = random.Random(rng.random()), GameState.start(stones), 0
        while state.options():
            state = state.play(probe.choice(state.options()))
            plies += 1
        if plies >= 40:
            boards.append(stones)
    return boards
