"""Effect modification of the programme by age (65+) and sex: likelihood-ratio tests."""

import math

from . import calibration, config, features, linalg, logistic


def log_likelihood(x, y, beta):
    total = 0.0
    for row, out in zip(x, y):
        eta = linalg.dot(beta, row)
        total += out * eta - math.log1p(math.exp(eta)) if eta < 30 else out * eta - eta
    return total


def _with_product(members, terms, modifier):
    x, y = features.design(members, terms)
    pos = terms.index("program") + 1
    extra = []
    for m, row in zip(members, x):
        value = modifier(m)
        extra.append(row + [row[pos] * value])
    return extra, y


def lr_test(members, name, modifier, terms=None):
    terms = terms or config.MODEL_TERMS
    x0, y = features.design(members, terms)
    b0, _ = logistic.fit(x0, y)
    x1, _ = _with_product(members, terms, modifier)
    b1, _ = logistic.fit(x1, y)
    stat = 2 * (log_likelihood(x1, y, b1) - log_likelihood(x0, y, b0))
    return {"modifier": name, "statistic": stat, "p_value": calibration._chi2_sf(stat, 1)}


def table_s3(members):
    return [
        lr_test(members, "age_65plus", lambda m: 1.0 if m.age >= 65 else 0.0),
        lr_test(members, "female", lambda m: 1.0 if m.patient.sex == "female" else 0.0),
    ]
