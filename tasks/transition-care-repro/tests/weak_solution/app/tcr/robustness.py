"""Sensitivity analyses of Table 3: the programme odds ratio in restricted cohorts."""

from . import config, features, logistic

ANALYSES = [
    ("wave1_only", lambda m, c: c["wave2"] == 0.0, "wave2"),
    ("exclude_charlson_4plus", lambda m, c: c["charlson_4plus"] == 0.0, "charlson_4plus"),
    ("age_65plus", lambda m, c: m.age >= 65, None),
]


def table3(members):
    out = {}
    for name, keep, dropped in ANALYSES:
        subset = [m for m in members if keep(m, features.covariates(m))]
        terms = [t for t in config.MODEL_TERMS if t != dropped]
        x, y = features.design(subset, terms)
        row = dict(logistic.odds_ratios(x, y, terms)["program"])
        row["n"] = len(subset)
        out[name] = row
    return out
