"""Initial tracer fields."""

import math

import numpy as np


class InitialError(ValueError):
    pass


def gaussian(grid, spec):
    x, y = grid.centres()
    x0 = float(spec.get("x0", 0.5 * grid.lx))
    y0 = float(spec.get("y0", 0.5 * grid.ly))
    w = float(spec.get("width", 0.1))
    base = float(spec.get("background", 0.0))
    amp = float(spec.get("amplitude", 1.0))
    return base + amp * np.exp(-((x - x0) ** 2 + (y - y0) ** 2) / (2 * w * w))


def sine(grid, spec):
    x, y = grid.centres()
    kx = int(spec.get("kx", 1))
    ky = int(spec.get("ky", 1))
    base = float(spec.get("background", 1.0))
    amp = float(spec.get("amplitude", 0.5))
    return base + amp * np.sin(2 * math.pi * kx * x / grid.lx) * np.sin(2 * math.pi * ky * y / grid.ly)


def slotted(grid, spec):
    """A block of tracer: a discontinuous test of the limiters."""
    x, y = grid.centres()
    x0, x1 = float(spec.get("x0", 0.25 * grid.lx)), float(spec.get("x1", 0.5 * grid.lx))
    y0, y1 = float(spec.get("y0", 0.25 * grid.ly)), float(spec.get("y1", 0.5 * grid.ly))
    base = float(spec.get("background", 0.0))
    inside = (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
    return base + np.where(inside, float(spec.get("amplitude", 1.0)), 0.0)


SHAPES = {"gaussian": gaussian, "sine": sine, "slotted": slotted}


def initial_field(grid, spec, mms=None):
    if mms is not None:
        x, y = grid.centres()
        return mms.exact(x, y, 0.0)
    kind = spec.get("kind", "gaussian")
    if kind not in SHAPES:
        raise InitialError(f"unknown initial condition {kind!r}")
    return SHAPES[kind](grid, spec).astype(float)
