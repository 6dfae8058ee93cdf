"""Adjusted absolute risk difference by marginal standardisation (Results, paragraph 3)."""

import math

from . import config, features, linalg, logistic


def _predict(beta, row):
    eta = linalg.dot(beta, row)
    return 1.0 / (1.0 + math.exp(-eta))


def standardised_risks(members, beta, terms):
    """Mean predicted risk with everyone set to programme, and to usual care."""
    pos = terms.index("program") + 1
    x, _ = features.design(members, terms)
    treated = untreated = 0.0
    for row in x:
        a = list(row)
        a[pos] = 1.0
        b = list(row)
        b[pos] = 0.0
        treated += _predict(beta, a)
        untreated += _predict(beta, b)
    n = len(x)
    return treated / n, untreated / n


def risk_difference(members, terms=None):
    terms = terms or config.MODEL_TERMS
    x, y = features.design(members, terms)
    beta, _ = logistic.fit(x, y)
    treated, untreated = standardised_risks(members, beta, terms)
    return {"risk_program": treated, "risk_usual_care": untreated, "difference": treated - untreated}
