"""Vertex-centred grid and time stepping helpers."""


def make_grid(length, n):
    dx = length / n
    return dx, [j * dx for j in range(n + 1)]


def step_count(t_end, dt):
    """Number of steps: t_end / dt rounded to the nearest integer (at least 1)."""
    return max(1, int(round(t_end / dt)))
