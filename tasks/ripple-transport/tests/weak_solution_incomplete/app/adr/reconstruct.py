"""Limited piecewise-linear (MUSCL) reconstruction.

Slopes are computed from the backward and forward differences dm, dp of each
cell along one axis; the face states are q_i +/- slope_i / 2.
"""

import numpy as np

LIMITERS = ("none", "minmod", "vanleer", "mc")


def minmod(a, b):
    return np.where(a * b > 0.0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)


def minmod3(a, b, c):
    return minmod(a, minmod(b, c))


def slope(dm, dp, limiter):
    """The limited cell slope from backward and forward differences."""
    if limiter == "none":
        return 0.5 * (dm + dp)
    if limiter == "minmod":
        return minmod(dm, dp)
    if limiter == "vanleer":
        prod = dm * dp
        denom = dm + dp
        safe = np.where(denom == 0.0, 1.0, denom)
        return np.where(prod > 0.0, 2.0 * prod / safe, 0.0)
    if limiter == "mc":
        return minmod3(2.0 * dm, 0.5 * (dm + dp), 2.0 * dp)
    raise ValueError(f"unknown limiter {limiter!r}")


def face_states_x(qp, limiter, ng):
    """Left and right states at every x-face of the interior rows.

    qp is padded with ng >= 2 ghost layers; the result arrays have shape
    (ny, nx + 1): entry [:, k] belongs to the face between cells k - 1 and k.
    """
    rows = slice(ng, qp.shape[0] - ng)
    q = qp[rows, :]
    d = q[:, 1:] - q[:, :-1]
    s = slope(d[:, :-1], d[:, 1:], limiter)  # slopes of columns 1 .. n-2 of the padded row
    lo = ng - 1
    hi = q.shape[1] - ng
    # cell c (padded column) has slope s[:, c - 1]
    left = q[:, lo:hi] + 0.5 * s[:, lo - 1:hi - 1]
    right = q[:, lo + 1:hi + 1] - 0.5 * s[:, lo:hi]
    return left, right


def face_states_y(qp, limiter, ng):
    """Lower and upper states at every y-face, arrays of shape (ny + 1, nx)."""
    left, right = face_states_x(qp.T, limiter, ng)
    return left.T, right.T
