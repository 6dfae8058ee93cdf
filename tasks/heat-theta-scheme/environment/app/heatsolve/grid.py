"""Vertex-centred grid and time stepping helpers."""


def make_grid(length, n):
    dx = length / n
    return dx, [j * dx for j in range(n + 1)]


def step_count(t_end, dt):
    return int(t_end / dt)
