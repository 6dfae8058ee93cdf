"""Tunable engine settings in one place."""

#: Plies searched by the middle-game search when the clock allows.
SEARCH_DEPTH = 3
#: Deepest iterative-deepening step ever tried.
MAX_DEPTH = 8
#: Number of empty cells at which the exact endgame solver takes over.
ENDGAME_EMPTIES = 10
#: Search nodes per second of budget (calibrated low: a loaded machine is slower).
NODES_PER_SECOND = 1500
#: Exact-solver nodes per second of budget.
SOLVER_NODES_PER_SECOND = 2500
#: A search is stopped by the process's CPU clock (the referee's forfeit clock; wall time varies
#: with the machine's load, CPU time does not) at this multiple of its budget.
SAFETY_FACTOR = 2.5
#: Fraction of the per-move budget the engine plans to use.
TIME_FRACTION = 0.6
#: Per-move budget in milliseconds when the referee does not send one.
DEFAULT_MOVE_MS = 1000
#: Whether the opening book is consulted.
USE_BOOK = True
#: Score used for a won (lost) position in search, larger than any evaluation.
WIN_SCORE = 100000
