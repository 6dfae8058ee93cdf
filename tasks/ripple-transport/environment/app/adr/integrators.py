"""Explicit strong-stability-preserving Runge-Kutta integrators.

Each integrator advances dq/dt = L(q, t) by one step dt, calling L at the
stage times of its Butcher tableau.
"""


def forward_euler(rhs, q, t, dt):
    return q + dt * rhs(q, t)


def ssp_rk2(rhs, q, t, dt):
    """Heun's method in Shu-Osher form (second order)."""
    q1 = q + dt * rhs(q, t)
    return 0.5 * q + 0.5 * (q1 + dt * rhs(q1, t + dt))


def ssp_rk3(rhs, q, t, dt):
    """The three-stage, third-order SSP scheme of Shu and Osher."""
    q1 = q + dt * rhs(q, t)
    q2 = 0.75 * q + 0.25 * (q1 + dt * rhs(q1, t + dt))
    return q / 3.0 + 2.0 / 3.0 * (q2 + dt * rhs(q2, t + dt))


INTEGRATORS = {
    "euler": forward_euler,
    "rk2": ssp_rk2,
    "rk3": ssp_rk3,
}

ORDER = {"euler": 1, "rk2": 2, "rk3": 3}


def get_integrator(name):
    try:
        return INTEGRATORS[name]
    except KeyError:
        raise ValueError(f"unknown integrator {name!r}; known: {', '.join(INTEGRATORS)}") from None
