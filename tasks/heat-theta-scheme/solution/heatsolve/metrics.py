"""Error norms and convergence order."""

import math


def l2_error(u, exact, dx):
    return math.sqrt(dx * sum((a - b) ** 2 for a, b in zip(u, exact)))


def observed_order(coarse_error, fine_error):
    return math.log2(coarse_error / fine_error)
