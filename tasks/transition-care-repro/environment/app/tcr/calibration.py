"""Model performance reported in the Results: c-statistic and Hosmer-Lemeshow test."""

import math

from . import features, linalg, logistic


def predictions(members, terms):
    x, y = features.design(members, terms)
    beta, _ = logistic.fit(x, y)
    preds = [1.0 / (1.0 + math.exp(-linalg.dot(beta, row))) for row in x]
    return preds, y


def c_statistic(preds, outcomes):
    """Area under the ROC curve by the rank (Mann-Whitney) formula, ties averaged."""
    order = sorted(range(len(preds)), key=lambda i: preds[i])
    ranks = [0.0] * len(preds)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and preds[order[j + 1]] == preds[order[i]]:
            j += 1
        avg = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    pos = [r for r, o in zip(ranks, outcomes) if o == 1.0]
    n_pos = len(pos)
    n_neg = len(outcomes) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    return (sum(pos) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def _chi2_sf(stat, df):
    """Survival function of the chi-square distribution (series for the regularised gamma)."""
    if stat <= 0:
        return 1.0
    a, x = df / 2.0, stat / 2.0
    term = total = 1.0 / a
    n = 1
    while abs(term) > 1e-12 * abs(total) and n < 1000:
        term *= x / (a + n)
        total += term
        n += 1
    lower = total * math.exp(-x + a * math.log(x) - math.lgamma(a))
    return max(0.0, 1.0 - lower)


def hosmer_lemeshow(preds, outcomes, groups=10):
    pairs = sorted(zip(preds, outcomes))
    n = len(pairs)
    stat = 0.0
    used = 0
    for g in range(groups):
        chunk = pairs[g * n // groups:(g + 1) * n // groups]
        if not chunk:
            continue
        expected = sum(p for p, _ in chunk)
        observed = sum(o for _, o in chunk)
        size = len(chunk)
        denom = expected * (1 - expected / size)
        if denom > 0:
            stat += (observed - expected) ** 2 / denom
            used += 1
    df = max(used - 2, 1)
    return {"statistic": stat, "df": df, "p_value": _chi2_sf(stat, df)}


def performance(members, terms):
    preds, y = predictions(members, terms)
    return {"c_statistic": c_statistic(preds, y), "hosmer_lemeshow": hosmer_lemeshow(preds, y)}
