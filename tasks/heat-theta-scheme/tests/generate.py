"""Seeded hidden cases for heat-theta-scheme and their spectral reference.

The reference does not time-step: for the vertex grid with the mirror (ghost
point) Neumann rule or homogeneous Dirichlet ends, the grid samples of
sin(k pi x / L) and cos(k pi x / L) are exact eigenvectors of the three-point
Laplacian with eigenvalue -4 sin^2(k pi / 2n) / dx^2, so the theta-method
multiplies each Fourier coefficient by the amplification factor
G = (1 + (1 - theta) r lam) / (1 - theta r lam) once per step.
"""

import math
import random

PUBLIC_CASE = {
    "length": 1.0, "alpha": 1.0, "bc": "dirichlet", "theta": 0.5,
    "n": 20, "dt": 0.0025, "t_end": 0.1,
    "modes": [[1, 1.0], [3, 0.5]], "refinements": 3,
}


def _phi(bc, k, x, length):
    if bc == "dirichlet":
        return math.sin(k * math.pi * x / length)
    return math.cos(k * math.pi * x / length)


def reference_level(cfg, n, dt):
    length, alpha, bc, theta = cfg["length"], cfg["alpha"], cfg["bc"], cfg["theta"]
    steps = max(1, int(round(cfg["t_end"] / dt)))
    dt_used = cfg["t_end"] / steps
    dx = length / n
    r = alpha * dt_used / dx ** 2
    xs = [j * dx for j in range(n + 1)]
    coef = []
    for k, a in cfg["modes"]:
        lam = -4.0 * math.sin(k * math.pi / (2 * n)) ** 2
        gain = (1.0 + (1.0 - theta) * r * lam) / (1.0 - theta * r * lam)
        coef.append((k, a * gain ** steps, a * math.exp(-alpha * (k * math.pi / length) ** 2 * cfg["t_end"])))
    u = [sum(c * _phi(bc, k, x, length) for k, c, _ in coef) for x in xs]
    exact = [sum(e * _phi(bc, k, x, length) for k, _, e in coef) for x in xs]
    if bc == "dirichlet":
        u[0] = u[-1] = 0.0
    err = math.sqrt(dx * sum((a - b) ** 2 for a, b in zip(u, exact)))
    return {"n": n, "steps": steps, "x": xs, "u": u, "l2_error": err}


def reference(cfg):
    levels = [reference_level(cfg, cfg["n"] * 2 ** i, cfg["dt"] / 2 ** i)
              for i in range(int(cfg.get("refinements", 3)))]
    order = None
    if len(levels) >= 2:
        order = math.log2(levels[-2]["l2_error"] / levels[-1]["l2_error"])
    first = levels[0]
    return {"x": first["x"], "u": first["u"], "steps": first["steps"],
            "l2_error": first["l2_error"], "levels": levels, "observed_order": order}


def _modes(rng, bc, n, count):
    low = 0 if bc == "neumann" else 1
    ks = rng.sample(range(low, max(low + count, n // 4)), count)
    return [[k, round(rng.uniform(0.2, 2.0) * rng.choice([-1, 1]), 3)] for k in sorted(ks)]


def _case(rng, bc="dirichlet", theta=0.5, refinements=3, max_r=4.0, n=None):
    length = round(rng.uniform(0.5, 3.0), 2)
    alpha = round(rng.uniform(0.05, 1.5), 3)
    n = n or rng.choice([16, 20, 24, 32, 40])
    dx = length / n
    modes = _modes(rng, bc, n, rng.randint(2, 3))
    k_max = max(1, max(k for k, _ in modes))
    # the fastest mode decays by a factor e^0.3 .. e^2.5 by t_end
    t_target = rng.uniform(0.3, 2.5) / (alpha * (k_max * math.pi / length) ** 2)
    # dt = 2^-m so t_end / dt is exact; r = alpha dt / dx^2 stays below max_r
    m = 0
    while alpha * 2.0 ** -m / dx ** 2 > max_r or t_target / 2.0 ** -m < 20:
        m += 1
    dt = 2.0 ** -m
    steps = min(120, max(20, int(round(t_target / dt))))
    return {"length": length, "alpha": alpha, "bc": bc, "theta": theta, "n": n,
            "dt": dt, "t_end": steps * dt, "modes": modes, "refinements": refinements}


def _rounding_case(rng):
    """dt and t_end as short decimals where int(t_end / dt) is one short."""
    while True:
        dt = rng.randint(1, 99) / 1000.0
        steps = rng.randint(10, 80)
        t_end = float(f"{steps * dt:.6g}")
        if int(t_end / dt) != int(round(t_end / dt)):
            break
    cfg = _case(rng, theta=0.5, refinements=2)
    k_max = max(k for k, _ in cfg["modes"])
    cfg["alpha"] = round(rng.uniform(0.3, 2.5) / ((k_max * math.pi / cfg["length"]) ** 2 * t_end), 6)
    cfg.update({"dt": dt, "t_end": t_end})
    return cfg


HIDDEN_PER_SUBTASK = 20


def hidden_cases(seed, count=HIDDEN_PER_SUBTASK):
    """{subtask: [config, ...]} for the field subtasks, plus order cases; `count` each."""
    rng = random.Random(seed)
    dirichlet = [lambda: _case(rng),
                 lambda: _case(rng, n=rng.choice([64, 80]), refinements=1)]
    thetas = [lambda: _case(rng, theta=0.0, refinements=1, max_r=0.45),
              lambda: _case(rng, theta=1.0),
              lambda: _case(rng, theta=round(rng.uniform(0.55, 0.95), 2))]
    neumann = [lambda: _case(rng, bc="neumann"),
               lambda: _case(rng, bc="neumann", theta=1.0)]
    orders = [lambda: _case(rng, refinements=3),
              lambda: _case(rng, theta=1.0, refinements=3),
              lambda: _case(rng, bc="neumann", refinements=3)]

    def cycle(makers):
        return [makers[i % len(makers)]() for i in range(count)]

    return {
        "dirichlet_cn_field": cycle(dirichlet),
        "step_count_rounding": [_rounding_case(rng) for _ in range(count)],
        "theta_family": cycle(thetas),
        "neumann_field": cycle(neumann),
        "observed_order": cycle(orders),
    }
