"""Initial conditions and exact solutions built from Fourier modes."""

import math


def basis(bc, k, x, length):
    if bc == "dirichlet":
        return math.sin(k * math.pi * x / length)
    return math.cos(k * math.pi * x / length)


def initial(bc, modes, xs, length):
    return [sum(a * basis(bc, k, x, length) for k, a in modes) for x in xs]


def exact(bc, modes, xs, length, alpha, t):
    out = []
    for x in xs:
        total = 0.0
        for k, a in modes:
            decay = math.exp(-alpha * (k * math.pi / length) ** 2 * t)
            total += a * decay * basis(bc, k, x, length)
        out.append(total)
    return out
