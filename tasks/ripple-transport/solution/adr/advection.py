"""Upwind flux-form advection of the reconstructed face states."""

import numpy as np

from .grid import NGHOST
from .reconstruct import face_states_x, face_states_y


def upwind(vel, left, right):
    return np.where(vel >= 0.0, vel * left, vel * right)


def advective_fluxes(qp, velocity, boundaries, limiter):
    """Face fluxes F (ny, nx + 1) and G (ny + 1, nx) of the padded field."""
    lx, rx = face_states_x(qp, limiter, NGHOST)
    ly, ry = face_states_y(qp, limiter, NGHOST)
    fx = upwind(velocity.u, lx, rx)
    fy = upwind(velocity.v, ly, ry)
    fx[:, boundaries.wall_faces_x()] = 0.0
    fy[boundaries.wall_faces_y(), :] = 0.0
    return fx, fy


def advection_tendency(qp, velocity, boundaries, limiter):
    """-div(u q) per cell, in flux form."""
    g = velocity.grid
    fx, fy = advective_fluxes(qp, velocity, boundaries, limiter)
    return -(fx[:, 1:] - fx[:, :-1]) / g.dx - (fy[1:, :] - fy[:-1, :]) / g.dy


def advective_speed_bound(velocity):
    """max |u| / dx + max |v| / dy, the inverse advective time scale."""
    g = velocity.grid
    umax, vmax = velocity.max_speeds()
    return umax / g.dx + vmax / g.dy
