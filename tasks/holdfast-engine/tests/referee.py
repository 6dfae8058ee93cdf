"""The referee: graded opponents and one game against the agent's engine over the protocol.

Everything here uses the reference rules in reference/, never the agent's code.
"""

from __future__ import annotations

import os
import random
import select
import time

from reference.board import CORNERS, cell_name, opponent, parse_cell
from reference.game import PASS, GameState
from reference.rules import apply_move, flips_for, legal_moves
from reference.scoring import final_result

WEIGHTS = (
    100, -25, 10, 5, 5, 10, -25, 100,
    -25, -40, -2, -2, -2, -2, -40, -25,
    10, -2, 4, 2, 2, 4, -2, 10,
    5, -2, 2, 1, 1, 2, -2, 5,
    5, -2, 2, 1, 1, 2, -2, 5,
    10, -2, 4, 2, 2, 4, -2, 10,
    -25, -40, -2, -2, -2, -2, -40, -25,
    100, -25, 10, 5, 5, 10, -25, 100,
)


class RandomOpponent:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> int:
        return self.rng.choice(state.options())


class GreedyOpponent:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> int:
        options = state.options()
        if options == [PASS]:
            return PASS
        best = max(len(flips_for(state.board, m, state.side)) for m in options)
        return self.rng.choice([m for m in options if len(flips_for(state.board, m, state.side)) == best])


def _evaluate(board: list[str], side: str) -> int:
    other = opponent(side)
    score = 0
    for cell, content in enumerate(board):
        if content == side:
            score += WEIGHTS[cell]
        elif content == other:
            score -= WEIGHTS[cell]
    score += 5 * (len(legal_moves(board, side)) - len(legal_moves(board, other)))
    score += 30 * sum(1 if board[c] == side else -1 if board[c] == other else 0 for c in CORNERS)
    return score


def _negamax(board: list[str], side: str, depth: int, alpha: int, beta: int) -> int:
    moves = legal_moves(board, side)
    if not moves:
        if not legal_moves(board, opponent(side)):
            result = final_result(board)
            diff = result.black - result.white if side == "X" else result.white - result.black
            return 10000 * ((diff > 0) - (diff < 0)) + diff
        return -_negamax(board, opponent(side), depth, -beta, -alpha)
    if depth == 0:
        return _evaluate(board, side)
    best = -10**9
    for move in sorted(moves, key=lambda m: -WEIGHTS[m]):
        best = max(best, -_negamax(apply_move(board, move, side), opponent(side), depth - 1, -beta, -alpha))
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


class SearchOpponent:
    """Alpha-beta to ``depth`` plies on a positional, mobility and corner evaluation."""

    def __init__(self, seed: int, depth: int) -> None:
        self.rng = random.Random(seed)
        self.depth = depth

    def choose(self, state: GameState) -> int:
        options = state.options()
        if options == [PASS] or len(options) == 1:
            return options[0]
        scored = []
        for move in options:
            after = apply_move(state.board, move, state.side)
            scored.append((-_negamax(after, opponent(state.side), self.depth - 1, -10**9, 10**9), move))
        best = max(score for score, _ in scored)
        return self.rng.choice([m for score, m in scored if score == best])


def session_cpu_seconds(session: int) -> float:
    """CPU time used so far by every process of ``session`` (and their reaped children)."""
    ticks = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if int(fields[3]) == session:
            ticks += sum(int(value) for value in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


class Engine:
    """The agent's engine as a child process speaking the protocol (in its own session)."""

    def __init__(self, proc) -> None:
        self.proc = proc

    def cpu(self) -> float:
        return session_cpu_seconds(self.proc.pid)

    def ask_move(self, line: str, cpu_limit: float, wall_limit: float) -> tuple[str | None, float]:
        """Send ``line``; the reply and the CPU seconds it cost. Gives up (None) as
        soon as the engine has used more than ``cpu_limit`` or ``wall_limit`` passed."""
        start_cpu, started = self.cpu(), time.monotonic()
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return None, 0.0
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            used = self.cpu() - start_cpu
            if ready:
                reply = self.proc.stdout.readline()
                return (reply.decode("utf-8", "replace").strip() if reply else None), used
            if used > cpu_limit or time.monotonic() - started > wall_limit:
                return None, used

    def ask(self, line: str, timeout: float) -> tuple[str | None, float]:
        started = time.monotonic()
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return None, 0.0
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None, time.monotonic() - started
        reply = self.proc.stdout.readline()
        elapsed = time.monotonic() - started
        if not reply:
            return None, elapsed
        return reply.decode("utf-8", "replace").strip(), elapsed


def play_match_game(engine: Engine, opponent_bot, stones: tuple[int, ...], engine_side: str, move_ms: int,
                    cpu_limit: float, hard_limit: float) -> dict:
    """One game; the engine forfeits on an illegal or malformed move, or a move
    costing more than ``cpu_limit`` CPU seconds (or ``hard_limit`` wall seconds)."""
    state = GameState.start(stones)
    longest = 0.0
    while not state.is_over():
        if state.side == engine_side:
            reply, _ = engine.ask(f"position {state}", hard_limit)
            if reply != "ok":
                return {"forfeit": True, "points": 0.0, "reason": f"position -> {reply!r}", "longest": longest}
            reply, elapsed = engine.ask_move(f"go {move_ms}", cpu_limit, hard_limit)
            longest = max(longest, elapsed)
            if reply is None:
                return {"forfeit": True, "points": 0.0, "reason": "no move in time", "longest": longest, "late": True}
            if elapsed > cpu_limit:
                return {"forfeit": True, "points": 0.0, "reason": f"move took {elapsed:.2f}s of CPU", "longest": longest,
                        "late": True}
            words = reply.split()
            if len(words) != 2 or words[0] != "move":
                return {"forfeit": True, "points": 0.0, "reason": f"bad reply {reply!r}", "longest": longest}
            try:
                move = PASS if words[1] == "pass" else parse_cell(words[1])
            except ValueError:
                return {"forfeit": True, "points": 0.0, "reason": f"bad move {words[1]!r}", "longest": longest}
            if move not in state.options():
                return {"forfeit": True, "points": 0.0, "reason": f"illegal move {words[1]} in {state}", "longest": longest,
                        "illegal": True}
        else:
            move = opponent_bot.choose(state)
        state = state.play(move)
    result = final_result(state.board)
    points = 1.0 if result.winner == engine_side else 0.5 if result.winner == "draw" else 0.0
    return {"points": points, "reason": f"{result.black}-{result.white}", "longest": longest}


def move_text(move: int) -> str:
    return "pass" if move == PASS else cell_name(move)
