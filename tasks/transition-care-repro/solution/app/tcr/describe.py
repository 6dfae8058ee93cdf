"""Table 1: baseline characteristics of the analytic cohort by study arm."""

import math

from . import config, figures


def _mean_sd(values):
    n = len(values)
    if n == 0:
        return None, None
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var)


def _share(flags):
    return sum(flags) / len(flags) if flags else None


def arm(members, enrolled):
    return [m for m in members if bool(m.index.program) == enrolled]


def characteristics(members):
    """{row label: value} for one arm."""
    ages = [m.age for m in members]
    weights = [m.index.weight_kg for m in members]
    los = [m.index.length_of_stay for m in members]
    age_mean, age_sd = _mean_sd(ages)
    wt_mean, wt_sd = _mean_sd(weights)
    los_mean, los_sd = _mean_sd(los)
    groups = {label: _share([figures.age_group(a) == label for a in ages]) for label, _, _ in config.AGE_GROUPS}
    return {
        "n": len(members),
        "age_mean": age_mean,
        "age_sd": age_sd,
        "male_share": _share([m.patient.sex == "male" for m in members]),
        "charlson_2_3_share": _share([2 <= m.index.charlson <= 3 for m in members]),
        "charlson_4plus_share": _share([m.index.charlson >= 4 for m in members]),
        "ckd_share": _share([m.index.creatinine_mgdl > config.CKD_CREATININE_MGDL for m in members]),
        "weight_mean": wt_mean,
        "weight_sd": wt_sd,
        "los_mean": los_mean,
        "los_sd": los_sd,
        "wave2_share": _share([m.index.admit >= config.WAVE2_START for m in members]),
        "age_groups": groups,
    }


def standardised_difference(a, b, sd_a, sd_b):
    """Absolute standardised mean difference (pooled SD)."""
    if None in (a, b, sd_a, sd_b):
        return None
    pooled = math.sqrt((sd_a**2 + sd_b**2) / 2)
    return abs(a - b) / pooled if pooled else 0.0


def table1(members):
    prog = characteristics(arm(members, True))
    usual = characteristics(arm(members, False))
    return {
        "program": prog,
        "usual_care": usual,
        "smd_age": standardised_difference(prog["age_mean"], usual["age_mean"], prog["age_sd"], usual["age_sd"]),
        "smd_weight": standardised_difference(prog["weight_mean"], usual["weight_mean"], prog["weight_sd"],
                                              usual["weight_sd"]),
    }
