"""Weak baseline (public checks only), installed as /app/run.py: a standalone
Crank-Nicolson solver for Dirichlet ends. theta is fixed at 0.5, the boundary
kind is ignored, and the step count is int(t_end / dt)."""

import argparse
import json
import math


def tridiag(a, b, c, d):
    n = len(b)
    cp, dp = [0.0] * n, [0.0] * n
    cp[0], dp[0] = c[0] / b[0], d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = [0.0] * n
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def level(cfg, n, dt):
    L, alpha = cfg["length"], cfg["alpha"]
    dx = L / n
    steps = int(cfg["t_end"] / dt)
    r = alpha * dt / dx ** 2
    xs = [j * dx for j in range(n + 1)]
    u = [sum(a * math.sin(k * math.pi * x / L) for k, a in cfg["modes"]) for x in xs]
    m = n - 1
    for _ in range(steps):
        rhs = [u[j] + 0.5 * r * (u[j - 1] - 2 * u[j] + u[j + 1]) for j in range(1, n)]
        inner = tridiag([-0.5 * r] * m, [1 + r] * m, [-0.5 * r] * m, rhs)
        u = [0.0] + inner + [0.0]
    t = steps * dt
    exact = [sum(a * math.exp(-alpha * (k * math.pi / L) ** 2 * t) * math.sin(k * math.pi * x / L)
                 for k, a in cfg["modes"]) for x in xs]
    err = math.sqrt(dx * sum((p - q) ** 2 for p, q in zip(u, exact)))
    return xs, u, steps, err


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    cfg = json.load(open(args.config))
    levels, result = [], {}
    for i in range(int(cfg.get("refinements", 3))):
        xs, u, steps, err = level(cfg, cfg["n"] * 2 ** i, cfg["dt"] / 2 ** i)
        levels.append({"n": cfg["n"] * 2 ** i, "steps": steps, "l2_error": err})
        if i == 0:
            result = {"x": xs, "u": u, "steps": steps, "l2_error": err}
    result["levels"] = levels
    result["observed_order"] = (math.log2(levels[-2]["l2_error"] / levels[-1]["l2_error"])
                                if len(levels) > 1 else None)
    json.dump(result, open(args.output, "w"))


if __name__ == "__main__":
    main()
