"""Board geometry, cell notation and the position text format.

A board is a list of 64 one-character strings, index ``row * 8 + col`` with
row 0 being rank 1 and col 0 being file ``a``. Cells hold ``X`` (first
player), ``O`` (second player), ``.`` (empty) or ``#`` (a stone: blocked).
"""

from __future__ import annotations

SIZE = 8
CELLS = SIZE * SIZE
BLACK = "X"
WHITE = "O"
EMPTY = "."
STONE = "#"
FILES = "abcdefgh"
SYMBOLS = (BLACK, WHITE, EMPTY, STONE)

#: (drow, dcol) for the eight directions, clockwise from north.
DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
ORTHOGONAL = ((1, 0), (0, 1), (-1, 0), (0, -1))
CORNERS = (0, 7, 56, 63)


class PositionError(ValueError):
    """A position or a cell name could not be parsed."""


def opponent(side: str) -> str:
    """The other player."""
    return WHITE if side == BLACK else BLACK


def index(row: int, col: int) -> int:
    return row * SIZE + col


def row_col(cell: int) -> tuple[int, int]:
    return divmod(cell, SIZE)


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def cell_name(cell: int) -> str:
    """``0`` -> ``a1``, ``63`` -> ``h8``."""
    row, col = row_col(cell)
    return f"{FILES[col]}{row + 1}"


def parse_cell(name: str) -> int:
    """``a1`` -> ``0``; raises :class:`PositionError` on anything else."""
    name = name.strip().lower()
    if len(name) != 2 or name[0] not in FILES or not name[1].isdigit():
        raise PositionError(f"bad cell name {name!r}")
    row = int(name[1]) - 1
    if not 0 <= row < SIZE:
        raise PositionError(f"bad cell name {name!r}")
    return index(row, FILES.index(name[0]))


def _build_rays() -> list[list[list[int]]]:
    rays: list[list[list[int]]] = []
    for cell in range(CELLS):
        row, col = row_col(cell)
        per_cell = []
        for drow, dcol in DIRECTIONS:
            ray = []
            r, c = row + drow, col + dcol
            while on_board(r, c):
                ray.append(index(r, c))
                r, c = r + drow, c + dcol
            per_cell.append(ray)
        rays.append(per_cell)
    return rays


#: RAYS[cell][d] lists the cells from ``cell`` outwards in direction d, up to the edge.
RAYS = _build_rays()


def _build_orthogonal_neighbours() -> list[list[int]]:
    table = []
    for cell in range(CELLS):
        row, col = row_col(cell)
        table.append([index(row + dr, col + dc) for dr, dc in ORTHOGONAL if on_board(row + dr, col + dc)])
    return table


#: The up-to-four cells sharing an edge with each cell.
ORTHOGONAL_NEIGHBOURS = _build_orthogonal_neighbours()


def parse_board(text: str) -> list[str]:
    """64 symbols, rank 1 first, to a board list."""
    text = text.strip()
    if len(text) != CELLS:
        raise PositionError(f"a board has {CELLS} cells, got {len(text)}")
    bad = sorted(set(text) - set(SYMBOLS))
    if bad:
        raise PositionError(f"unknown cell symbols {''.join(bad)!r}")
    return list(text)


def format_board(board: list[str]) -> str:
    return "".join(board)


def parse_position(text: str) -> tuple[list[str], str]:
    """``<64 symbols> <X|O>`` to (board, side to move)."""
    parts = text.split()
    if len(parts) != 2 or parts[1] not in (BLACK, WHITE):
        raise PositionError("a position is '<64 cells> <X|O>'")
    return parse_board(parts[0]), parts[1]


def format_position(board: list[str], side: str) -> str:
    return f"{format_board(board)} {side}"


def pretty(board: list[str]) -> str:
    """A human-readable diagram, rank 8 on top."""
    lines = []
    for row in range(SIZE - 1, -1, -1):
        cells = " ".join(board[index(row, col)] for col in range(SIZE))
        lines.append(f"{row + 1} {cells}")
    lines.append("  " + " ".join(FILES))
    return "\n".join(lines)


def starting_board(stones: list[int] | tuple[int, ...] = ()) -> list[str]:
    """The four centre discs plus the given stones."""
    board = [EMPTY] * CELLS
    board[parse_cell("d4")] = WHITE
    board[parse_cell("e5")] = WHITE
    board[parse_cell("e4")] = BLACK
    board[parse_cell("d5")] = BLACK
    for cell in stones:
        if board[cell] != EMPTY:
            raise PositionError(f"a stone cannot go on {cell_name(cell)}")
        board[cell] = STONE
    return board
