"""Adaptive step-size control for the explicit transport step."""

from .advection import advective_speed_bound
from .diffusion import diffusive_rate_bound


class TimeStepError(RuntimeError):
    pass


class StepController:
    """Chooses dt from the CFL number and the run's velocity and diffusivity.

    dt = cfl / (max|u|/dx + max|v|/dy + 2 D_max (1/dx^2 + 1/dy^2)), never past
    t_end and never above max_dt when one is configured.
    """

    def __init__(self, velocity, diffusivity, cfl, max_dt=None, min_dt=1e-12):
        if not 0.0 < cfl <= 1.0:
            raise TimeStepError(f"cfl must be in (0, 1], got {cfl}")
        self.cfl = float(cfl)
        self.max_dt = None if max_dt is None else float(max_dt)
        self.min_dt = float(min_dt)
        self.rate = advective_speed_bound(velocity) + diffusive_rate_bound(diffusivity)

    def stable_dt(self):
        if self.rate == 0.0:
            return float("inf")
        return self.cfl / self.rate

    def next_dt(self, t, t_end):
        """The step to take from t; the last step lands exactly on t_end."""
        dt = self.stable_dt()
        if self.max_dt is not None:
            dt = min(dt, self.max_dt)
        remaining = t_end - t
        if dt >= remaining:
            return remaining, True
        if dt < self.min_dt:
            raise TimeStepError(f"time step {dt:.3e} below the minimum at t={t:.6g}")
        return dt, False


def finished(t, t_end):
    return t >= t_end
