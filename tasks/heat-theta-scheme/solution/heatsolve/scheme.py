"""The theta-method: (u' - u)/dt = alpha * (theta * D u' + (1 - theta) * D u)."""

from . import tridiag


def laplacian(u, bc):
    """r-free second difference D u * dx^2 with the boundary treatment of `bc`."""
    n = len(u) - 1
    out = [0.0] * (n + 1)
    for j in range(1, n):
        out[j] = u[j - 1] - 2.0 * u[j] + u[j + 1]
    if bc == "neumann":
        out[0] = 2.0 * (u[1] - u[0])
        out[n] = 2.0 * (u[n - 1] - u[n])
    return out


def advance(u, bc, alpha, dx, dt, theta, steps):
    r = alpha * dt / (dx * dx)
    n = len(u) - 1
    lower = [-theta * r] * (n + 1)
    diag = [1.0 + 2.0 * theta * r] * (n + 1)
    upper = [-theta * r] * (n + 1)
    if bc == "dirichlet":
        diag[0] = diag[n] = 1.0
        upper[0] = lower[n] = 0.0
    else:
        upper[0] = -2.0 * theta * r
        lower[n] = -2.0 * theta * r
    u = list(u)
    if bc == "dirichlet":
        u[0] = u[n] = 0.0
    for _ in range(steps):
        d2 = laplacian(u, bc)
        rhs = [u[j] + (1.0 - theta) * r * d2[j] for j in range(n + 1)]
        if bc == "dirichlet":
            rhs[0] = rhs[n] = 0.0
        if theta == 0.0:
            u = rhs
        else:
            u = tridiag.solve(lower, diag, upper, rhs)
    return u
