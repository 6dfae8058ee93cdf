"""Model covariates of Table 2."""

from . import config


def covariates(member):
    idx = member.index
    ch = idx.charlson
    return {
        "program": 1.0 if idx.program else 0.0,
        "age10": member.age / 10.0,
        "male": 1.0 if member.patient.sex == "male" else 0.0,
        "charlson_2_3": 1.0 if 2 <= ch <= 3 else 0.0,
        "charlson_4plus": 1.0 if ch >= 4 else 0.0,
        "ckd": 1.0 if idx.creatinine_mgdl > config.CKD_CREATININE_MGDL else 0.0,
        "weight10": idx.weight_kg / 10.0,
        "wave2": 1.0 if idx.admit >= config.WAVE2_START else 0.0,
    }


def design(members, terms):
    rows = [covariates(m) for m in members]
    x = [[1.0] + [r[t] for t in terms] for r in rows]
    y = [1.0 if m.readmitted else 0.0 for m in members]
    return x, y
