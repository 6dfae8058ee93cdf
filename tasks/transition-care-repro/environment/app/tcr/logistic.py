"""Maximum-likelihood logistic regression with Wald confidence intervals."""

import math

from . import config, linalg


def _sigmoid(eta):
    if eta >= 0:
        return 1.0 / (1.0 + math.exp(-eta))
    e = math.exp(eta)
    return e / (1.0 + e)


def fit(x, y, max_iter=50, tol=1e-10):
    """Coefficients and their covariance matrix (inverse observed information)."""
    k = len(x[0])
    beta = [0.0] * k
    for _ in range(max_iter):
        grad = [0.0] * k
        info = linalg.zeros(k, k)
        for xi, yi in zip(x, y):
            p = _sigmoid(linalg.dot(beta, xi))
            w = p * (1.0 - p)
            for a in range(k):
                grad[a] += (yi - p) * xi[a]
                wa = w * xi[a]
                for b in range(k):
                    info[a][b] += wa * xi[b]
        step = linalg.solve(info, grad)
        beta = [b + s for b, s in zip(beta, step)]
        if max(abs(s) for s in step) < tol:
            break
    info = _information(x, beta)
    return beta, linalg.inverse(info)


def _information(x, beta):
    k = len(beta)
    info = linalg.zeros(k, k)
    for xi in x:
        p = _sigmoid(linalg.dot(beta, xi))
        w = p * (1.0 - p)
        for a in range(k):
            for b in range(k):
                info[a][b] += w * xi[a] * xi[b]
    return info


def odds_ratios(x, y, terms):
    """{term: {"or", "ci_low", "ci_high"}} for the non-intercept terms."""
    beta, cov = fit(x, y)
    table = {}
    for i, term in enumerate(terms, start=1):
        se = math.sqrt(cov[i][i])
        table[term] = {
            "or": math.exp(beta[i]),
            "ci_low": math.exp(beta[i] - config.Z95 * se),
            "ci_high": math.exp(beta[i] + config.Z95 * se),
        }
    return table
