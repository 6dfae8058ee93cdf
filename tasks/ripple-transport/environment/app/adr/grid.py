"""Uniform rectangular cell-centred grid with ghost layers."""

import numpy as np

NGHOST = 2
SIDES = ("west", "east", "south", "north")


class Grid:
    """A uniform nx x ny grid of cells over [0, lx] x [0, ly].

    Arrays of cell values have shape (ny, nx): row index j runs along y,
    column index i along x.  Padded arrays carry NGHOST ghost layers on every
    side and have shape (ny + 2 NGHOST, nx + 2 NGHOST).
    """

    def __init__(self, nx, ny, lx=1.0, ly=1.0):
        if nx < 4 or ny < 4:
            raise ValueError(f"grid needs at least 4 x 4 cells, got {nx} x {ny}")
        if lx <= 0 or ly <= 0:
            raise ValueError("domain lengths must be positive")
        self.nx = int(nx)
        self.ny = int(ny)
        self.lx = float(lx)
        self.ly = float(ly)
        self.dx = self.lx / self.nx
        self.dy = self.ly / self.ny

    @property
    def shape(self):
        return (self.ny, self.nx)

    @property
    def padded_shape(self):
        return (self.ny + 2 * NGHOST, self.nx + 2 * NGHOST)

    @property
    def cell_area(self):
        return self.dx * self.dy

    def x_centres(self):
        return (np.arange(self.nx) + 0.5) * self.dx

    def y_centres(self):
        return (np.arange(self.ny) + 0.5) * self.dy

    def x_faces(self):
        return np.arange(self.nx + 1) * self.dx

    def y_faces(self):
        return np.arange(self.ny + 1) * self.dy

    def centres(self):
        """Cell-centre coordinates as two (ny, nx) arrays."""
        return np.meshgrid(self.x_centres(), self.y_centres())

    def x_face_points(self):
        """Centres of the x-normal faces, two (ny, nx + 1) arrays."""
        return np.meshgrid(self.x_faces(), self.y_centres())

    def y_face_points(self):
        """Centres of the y-normal faces, two (ny + 1, nx) arrays."""
        return np.meshgrid(self.x_centres(), self.y_faces())

    def corners(self):
        """Cell-corner coordinates, two (ny + 1, nx + 1) arrays."""
        return np.meshgrid(self.x_faces(), self.y_faces())

    def zeros(self):
        return np.zeros(self.shape)

    def padded(self, q):
        """A padded copy of q with ghost cells left at zero."""
        out = np.zeros(self.padded_shape)
        out[self.interior] = q
        return out

    @property
    def interior(self):
        g = NGHOST
        return (slice(g, g + self.ny), slice(g, g + self.nx))

    def describe(self):
        return f"{self.nx} x {self.ny} cells, dx={self.dx:.4g}, dy={self.dy:.4g}"
