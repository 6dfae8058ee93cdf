"""Manufactured solutions for code verification.

q_e(x, y, t) = c0 + a sin(2 pi x / lx - w t) cos(2 pi y / ly + phi)

is made an exact solution of the model by adding the source

S = dq/dt + u dq/dx + v dq/dy - div(D grad q) + k q

for a uniform velocity (u, v), the constant or modulated diffusivity of
fields.diffusivity_function and a linear decay rate k.  It is periodic in x
and, when phi = 0, in y as well; Dirichlet sides take their values from q_e.
"""

import math

import numpy as np


class MMSError(ValueError):
    pass


class Manufactured:
    def __init__(self, spec, velocity_spec, diffusion_spec, decay_rate, lx, ly):
        if velocity_spec.get("kind", "uniform") != "uniform":
            raise MMSError("manufactured solutions need a uniform velocity")
        self.c0 = float(spec.get("c0", 1.0))
        self.a = float(spec.get("amplitude", 0.5))
        self.w = float(spec.get("omega", 1.0))
        self.phi = float(spec.get("phase", 0.0))
        self.u = float(velocity_spec.get("u", 0.0))
        self.v = float(velocity_spec.get("v", 0.0))
        self.d0 = float(diffusion_spec.get("d0", 0.0))
        kind = diffusion_spec.get("kind", "constant")
        self.eps = float(diffusion_spec.get("eps", 0.0)) if kind == "modulated" else 0.0
        self.k = float(decay_rate)
        self.kx = 2 * math.pi / lx
        self.ky = 2 * math.pi / ly

    def _angles(self, x, y, t):
        return self.kx * x - self.w * t, self.ky * y + self.phi

    def exact(self, x, y, t):
        a, b = self._angles(x, y, t)
        return self.c0 + self.a * np.sin(a) * np.cos(b)

    def boundary_value(self, x, y, t):
        return self.exact(x, y, t)

    def diffusivity(self, x, y):
        return self.d0 * (1 + self.eps * np.sin(self.kx * x) * np.cos(self.ky * y))

    def source(self, x, y, t):
        a, b = self._angles(x, y, t)
        amp = self.a
        qt = -self.w * amp * np.cos(a) * np.cos(b)
        qx = amp * self.kx * np.cos(a) * np.cos(b)
        qy = -amp * self.ky * np.sin(a) * np.sin(b)
        lap = -amp * (self.kx ** 2 + self.ky ** 2) * np.sin(a) * np.cos(b)
        d = self.diffusivity(x, y)
        dx = self.d0 * self.eps * self.kx * np.cos(self.kx * x) * np.cos(self.ky * y)
        dy = self.d0 * self.eps * self.ky * np.sin(self.kx * x) * np.cos(self.ky * y)
        div = d * lap + dx * qx + dy * qy
        q = self.c0 + amp * np.sin(a) * np.cos(b)
        return qt + self.u * qx + self.v * qy - div + self.k * q


def manufactured_from_config(cfg, grid):
    spec = cfg.get("mms")
    if not spec:
        return None
    reaction = cfg.get("reaction", {})
    kind = reaction.get("kind", "none")
    if kind not in ("none", "decay"):
        raise MMSError("manufactured solutions support only linear decay")
    rate = float(reaction.get("rate", 0.0)) if kind == "decay" else 0.0
    return Manufactured(spec, cfg.get("velocity", {}), cfg.get("diffusion", {}), rate,
                        grid.lx, grid.ly)


def discrete_errors(grid, q, mms, t):
    """L1, L2 and max errors of q against the exact solution at time t."""
    x, y = grid.centres()
    e = q - mms.exact(x, y, t)
    area = grid.cell_area
    total = grid.lx * grid.ly
    return {
        "l1": float(np.sum(np.abs(e)) * area / total),
        "l2": float(math.sqrt(np.sum(e * e) * area / total)),
        "linf": float(np.max(np.abs(e))),
    }
