"""Ghost-cell filling for the four sides of the domain.

Boundary kinds:

* ``periodic`` -- must be set on both sides of an axis;
* ``wall``     -- impermeable, insulated: zero normal velocity and zero
  diffusive flux, ghosts are the even mirror image of the interior;
* ``dirichlet`` -- the tracer value on the boundary face is prescribed
  (a constant or a callable of (x, y, t)); ghosts are the odd reflection about
  that value so that the face value and slope are second-order accurate.
"""

import numpy as np

from .grid import NGHOST, SIDES

KINDS = ("periodic", "wall", "dirichlet")


class BoundaryError(ValueError):
    pass


def check_boundaries(kinds):
    for side in SIDES:
        if kinds.get(side) not in KINDS:
            raise BoundaryError(f"boundary {side!r}: unknown kind {kinds.get(side)!r}")
    for a, b in (("west", "east"), ("south", "north")):
        if (kinds[a] == "periodic") != (kinds[b] == "periodic"):
            raise BoundaryError(f"periodic boundaries must pair: {a}={kinds[a]}, {b}={kinds[b]}")


class Boundaries:
    """The boundary conditions of a run."""

    def __init__(self, grid, kinds, values=None):
        check_boundaries(kinds)
        self.grid = grid
        self.kinds = dict(kinds)
        self.values = dict(values or {})

    def value_on(self, side, t):
        """Prescribed face values along a Dirichlet side at time t."""
        g = self.grid
        spec = self.values.get(side, 0.0)
        if side in ("west", "east"):
            x = np.full(g.ny, 0.0 if side == "west" else g.lx)
            y = g.y_centres()
        else:
            x = g.x_centres()
            y = np.full(g.nx, 0.0 if side == "south" else g.ly)
        if callable(spec):
            return np.asarray(spec(x, y, t), dtype=float)
        return np.full(x.shape, float(spec))

    def fill(self, qp, t):
        """Fill the ghost layers of the padded array qp in place."""
        self._fill_x(qp, t)
        self._fill_y(qp, t)
        return qp

    def _fill_x(self, qp, t):
        g = NGHOST
        nx = self.grid.nx
        rows = slice(g, g + self.grid.ny)
        west, east = self.kinds["west"], self.kinds["east"]
        if west == "periodic":
            qp[rows, :g] = qp[rows, nx:nx + g]
            qp[rows, g + nx:] = qp[rows, g:2 * g]
            return
        for side, kind in (("west", west), ("east", east)):
            for layer in range(g):
                inner = g + layer if side == "west" else g + nx - 1 - layer
                ghost = g - 1 - layer if side == "west" else g + nx + layer
                if kind == "wall":
                    qp[rows, ghost] = qp[rows, inner]
                else:
                    qp[rows, ghost] = 2.0 * self.value_on(side, t) - qp[rows, inner]

    def _fill_y(self, qp, t):
        g = NGHOST
        ny = self.grid.ny
        cols = slice(g, g + self.grid.nx)
        south, north = self.kinds["south"], self.kinds["north"]
        if south == "periodic":
            qp[:g, cols] = qp[ny:ny + g, cols]
            qp[g + ny:, cols] = qp[g:2 * g, cols]
            return
        for side, kind in (("south", south), ("north", north)):
            for layer in range(g):
                inner = g + layer if side == "south" else g + ny - 1 - layer
                ghost = g - 1 - layer if side == "south" else g + ny + layer
                if kind == "wall":
                    qp[ghost, cols] = qp[inner, cols]
                else:
                    qp[ghost, cols] = 2.0 * self.value_on(side, t) - qp[inner, cols]

    def closed(self):
        """True when no tracer can enter or leave (periodic or wall everywhere)."""
        return all(k != "dirichlet" for k in self.kinds.values())

    def wall_faces_x(self):
        """Boolean mask over the nx + 1 x-faces that are walls."""
        mask = np.zeros(self.grid.nx + 1, dtype=bool)
        mask[0] = self.kinds["west"] == "wall"
        mask[-1] = self.kinds["east"] == "wall"
        return mask

    def wall_faces_y(self):
        mask = np.zeros(self.grid.ny + 1, dtype=bool)
        mask[0] = self.kinds["south"] == "wall"
        mask[-1] = self.kinds["north"] == "wall"
        return mask
