"""Prescribed velocity and diffusivity fields.

Velocities come from a streamfunction psi(x, y): the face-normal velocities are
differences of psi between the two corners of each face, so the discrete
divergence of every cell vanishes to round-off (u = dpsi/dy, v = -dpsi/dx).
"""

import math

import numpy as np


class FieldError(ValueError):
    pass


def _uniform(spec, lx, ly):
    u0 = float(spec.get("u", 0.0))
    v0 = float(spec.get("v", 0.0))
    return lambda x, y: u0 * y - v0 * x


def _cellular(spec, lx, ly):
    """Closed cells: psi vanishes on the domain boundary when kx, ky are 1."""
    a = float(spec.get("amplitude", 1.0))
    kx = int(spec.get("kx", 1))
    ky = int(spec.get("ky", 1))
    return lambda x, y: a * np.sin(kx * math.pi * x / lx) * np.sin(ky * math.pi * y / ly)


def _periodic_cells(spec, lx, ly):
    """Cellular flow periodic in both directions plus a uniform drift."""
    a = float(spec.get("amplitude", 1.0))
    u0 = float(spec.get("u", 0.0))
    v0 = float(spec.get("v", 0.0))
    kx = int(spec.get("kx", 1))
    ky = int(spec.get("ky", 1))

    def psi(x, y):
        return (a * np.sin(2 * kx * math.pi * x / lx) * np.sin(2 * ky * math.pi * y / ly)
                + u0 * y - v0 * x)

    return psi


def _shear(spec, lx, ly):
    """Parallel shear flow u(y) = u0 + a sin(2 pi y / ly), periodic in x."""
    a = float(spec.get("amplitude", 1.0))
    u0 = float(spec.get("u", 0.0))
    return lambda x, y: u0 * y - a * ly / (2 * math.pi) * np.cos(2 * math.pi * y / ly)


STREAMFUNCTIONS = {
    "uniform": _uniform,
    "cellular": _cellular,
    "periodic_cells": _periodic_cells,
    "shear": _shear,
}


class Velocity:
    """Face-normal velocities u (ny, nx + 1) and v (ny + 1, nx)."""

    def __init__(self, grid, spec):
        kind = spec.get("kind", "uniform")
        if kind not in STREAMFUNCTIONS:
            raise FieldError(f"unknown velocity kind {kind!r}")
        self.kind = kind
        psi = STREAMFUNCTIONS[kind](spec, grid.lx, grid.ly)
        xc, yc = grid.corners()
        p = psi(xc, yc)
        self.u = (p[1:, :] - p[:-1, :]) / grid.dy
        self.v = -(p[:, 1:] - p[:, :-1]) / grid.dx
        self.grid = grid

    def centred(self):
        """Cell-centre velocities (averages of the two faces)."""
        return 0.5 * (self.u[:, 1:] + self.u[:, :-1]), 0.5 * (self.v[1:, :] + self.v[:-1, :])

    def max_speeds(self):
        return float(np.max(np.abs(self.u))), float(np.max(np.abs(self.v)))

    def divergence(self):
        g = self.grid
        return (self.u[:, 1:] - self.u[:, :-1]) / g.dx + (self.v[1:, :] - self.v[:-1, :]) / g.dy


def diffusivity_function(spec, lx, ly):
    """D(x, y) as a callable, from the run's diffusion section."""
    kind = spec.get("kind", "constant")
    d0 = float(spec.get("d0", 0.0))
    if d0 < 0:
        raise FieldError("diffusivity d0 must be non-negative")
    if kind == "constant":
        return lambda x, y: np.full(np.shape(x), d0)
    if kind == "modulated":
        eps = float(spec.get("eps", 0.0))
        if abs(eps) >= 1:
            raise FieldError("modulated diffusivity needs |eps| < 1")
        return lambda x, y: d0 * (1 + eps * np.sin(2 * math.pi * x / lx) * np.cos(2 * math.pi * y / lx))
    raise FieldError(f"unknown diffusivity kind {kind!r}")


class Diffusivity:
    """Diffusivity evaluated at the x-face and y-face centres."""

    def __init__(self, grid, spec):
        self.function = diffusivity_function(spec, grid.lx, grid.ly)
        self.dx_faces = self.function(*grid.x_face_points())
        self.dy_faces = self.function(*grid.y_face_points())
        self.grid = grid

    def maximum(self):
        return float(max(np.max(self.dx_faces), np.max(self.dy_faces)))

    def active(self):
        return self.maximum() > 0.0
