"""Budgets and norms reported with every run."""

import math

import numpy as np


def total_mass(grid, q):
    """The domain integral of the tracer."""
    return float(np.sum(q) * grid.dx * grid.dx)


def extrema(q):
    return float(np.min(q)), float(np.max(q))


def relative_drift(history):
    """|M(t) - M(0)| / |M(0)| for the last entry of a mass history."""
    if len(history) < 2 or history[0] == 0.0:
        return 0.0
    return abs(history[-1] - history[0]) / abs(history[0])


def observed_orders(resolutions, errors):
    """Orders log(e_k / e_{k+1}) / log(h_k / h_{k+1}) between successive grids."""
    orders = []
    for (n0, e0), (n1, e1) in zip(zip(resolutions, errors), zip(resolutions[1:], errors[1:])):
        if e0 <= 0 or e1 <= 0:
            orders.append(float("nan"))
            continue
        orders.append(math.log(e0 / e1) / math.log(n1 / n0))
    return orders


class History:
    """Mass and step-size history of a run, in step order."""

    def __init__(self, mass=None, dts=None):
        self.mass = list(mass or [])
        self.dts = list(dts or [])

    def record(self, grid, q, dt=None):
        self.mass.append(total_mass(grid, q))
        if dt is not None:
            self.dts.append(float(dt))

    def arrays(self):
        return np.asarray(self.mass, dtype=float), np.asarray(self.dts, dtype=float)

    def summary(self):
        lo = min(self.dts) if self.dts else float("nan")
        hi = max(self.dts) if self.dts else float("nan")
        return {"steps": len(self.dts), "mass_drift": relative_drift(self.mass),
                "dt_min": lo, "dt_max": hi}
