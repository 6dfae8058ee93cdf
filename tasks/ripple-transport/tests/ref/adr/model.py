"""The transport model: tendencies, splitting and one time step."""

import numpy as np

from .advection import advection_tendency
from .boundary import Boundaries
from .diffusion import diffusion_tendency
from .fields import Diffusivity, Velocity
from .grid import Grid
from .integrators import get_integrator
from .mms import manufactured_from_config
from .reaction import Reaction, apply_reaction


class Model:
    """Everything that does not change during a run, built from a config."""

    def __init__(self, cfg):
        gcfg = cfg["grid"]
        self.grid = Grid(gcfg["nx"], gcfg["ny"], gcfg.get("lx", 1.0), gcfg.get("ly", 1.0))
        self.mms = manufactured_from_config(cfg, self.grid)
        self.velocity = Velocity(self.grid, cfg.get("velocity", {}))
        self.diffusivity = Diffusivity(self.grid, cfg.get("diffusion", {}))
        self.reaction = Reaction(cfg.get("reaction", {}))
        values = dict(cfg.get("boundary_values", {}))
        if self.mms is not None:
            values = {side: self.mms.boundary_value for side in cfg["boundaries"]}
        self.boundaries = Boundaries(self.grid, cfg["boundaries"], values)
        scheme = cfg.get("scheme", {})
        self.limiter = scheme.get("limiter", "minmod")
        self.integrator_name = scheme.get("integrator", "rk2")
        self.integrator = get_integrator(self.integrator_name)
        if self.mms is not None:
            xs, ys = self.grid.centres()
            self._source_points = (xs, ys)
        self._padded = np.zeros(self.grid.padded_shape)

    def source(self, t):
        if self.mms is None:
            return 0.0
        return self.mms.source(*self._source_points, t)

    def transport_rhs(self, q, t):
        """Advection + diffusion (+ manufactured source) tendency at time t."""
        qp = self._padded
        qp[self.grid.interior] = q
        self.boundaries.fill(qp, t)
        out = advection_tendency(qp, self.velocity, self.boundaries, self.limiter)
        if self.diffusivity.active():
            out = out + diffusion_tendency(qp, self.diffusivity, self.boundaries)
        if self.mms is not None:
            out = out + self.source(t)
        return out

    def step(self, q, t, dt):
        """One Strang-split step: half reaction, transport, half reaction."""
        if self.reaction.active():
            q = apply_reaction(self.reaction, q, 0.5 * dt)
        q = self.integrator(self.transport_rhs, q, t, dt)
        if self.reaction.active():
            q = apply_reaction(self.reaction, q, 0.5 * dt)
        return q


def build_model(cfg):
    return Model(cfg)
