"""Conservative two-point diffusion with face-centred diffusivity."""

import numpy as np

from .grid import NGHOST


def diffusive_fluxes(qp, diffusivity, boundaries):
    """Face fluxes -D dq/dn at x-faces (ny, nx + 1) and y-faces (ny + 1, nx)."""
    grid = diffusivity.grid
    g = NGHOST
    rows = slice(g, g + grid.ny)
    cols = slice(g, g + grid.nx)
    qx = qp[rows, g - 1:g + grid.nx + 1]
    qy = qp[g - 1:g + grid.ny + 1, cols]
    fx = -diffusivity.dx_faces * (qx[:, 1:] - qx[:, :-1]) / grid.dx
    fy = -diffusivity.dy_faces * (qy[1:, :] - qy[:-1, :]) / grid.dy
    fx[:, boundaries.wall_faces_x()] = 0.0
    fy[boundaries.wall_faces_y(), :] = 0.0
    return fx, fy


def diffusion_tendency(qp, diffusivity, boundaries):
    grid = diffusivity.grid
    fx, fy = diffusive_fluxes(qp, diffusivity, boundaries)
    return -(fx[:, 1:] - fx[:, :-1]) / grid.dx - (fy[1:, :] - fy[:-1, :]) / grid.dy


def diffusive_rate_bound(diffusivity):
    """2 D_max (1/dx^2 + 1/dy^2), the inverse explicit diffusive time scale."""
    grid = diffusivity.grid
    return 2.0 * diffusivity.maximum() * (1.0 / grid.dx ** 2 + 1.0 / grid.dy ** 2)


def total_flux_through(fx, fy):
    """Net outward flux through the domain boundary (for budgets)."""
    return float(np.sum(fx[:, -1]) - np.sum(fx[:, 0]) + np.sum(fy[-1, :]) - np.sum(fy[0, :]))
