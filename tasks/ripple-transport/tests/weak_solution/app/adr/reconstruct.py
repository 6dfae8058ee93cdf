"""Limited piecewise-linear (MUSCL) reconstruction.

Slopes are computed from the backward and forward differences dm, dp of each
cell along one axis; the face states are q_i +/- slope_i / 2.
"""

import numpy as np

LIMITERS = ("none", "minmod", "vanleer", "mc")


def minmod(a, b):
    if a * b <= 0.0:
        return 0.0
    if a > 0.0:
        return min(a, b)
    return max(a, b)


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
        if prod <= 0.0:
            return 0.0
        return prod / (dm + dp)
    if limiter == "mc":
        return minmod3(2.0 * dm, 0.5 * (dm + dp), 2.0 * dp)
    raise ValueError(f"unknown limiter {limiter!r}")


def row_slopes(row, limiter):
    """Slopes of cells 1 .. n-2 of one padded row."""
    n = row.shape[0]
    out = np.zeros(n - 2)
    for c in range(1, n - 1):
        out[c - 1] = slope(row[c] - row[c - 1], row[c + 1] - row[c], limiter)
    return out


def face_states_x(qp, limiter, ng):
    """Left and right states at every x-face of the interior rows.

    qp is padded with ng >= 2 ghost layers; the result arrays have shape
    (ny, nx + 1): entry [:, k] belongs to the face between cells k - 1 and k.
    """
    rows = range(ng, qp.shape[0] - ng)
    lo = ng - 1
    hi = qp.shape[1] - ng
    left = np.zeros((len(rows), hi - lo))
    right = np.zeros((len(rows), hi - lo))
    for r, j in enumerate(rows):
        q = qp[j]
        s = row_slopes(q, limiter)
        for k in range(hi - lo):
            c = lo + k
            left[r, k] = q[c] + 0.5 * s[c - 1]
            right[r, k] = q[c + 1] - 0.5 * s[c]
    return left, right


def face_states_y(qp, limiter, ng):
    """Lower and upper states at every y-face, arrays of shape (ny + 1, nx)."""
    left, right = face_states_x(qp.T, limiter, ng)
    return left.T, right.T
