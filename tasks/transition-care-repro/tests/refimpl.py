"""Independent reference analysis for transition-care-repro (not derived from the starter)."""

import csv
import datetime as dt
import math
from pathlib import Path

END = dt.date(2022, 12, 31)
WAVE2 = dt.date(2021, 1, 1)
TERMS = ["program", "age10", "male", "charlson_2_3", "charlson_4plus", "ckd", "weight10", "wave2"]
AGE_GROUPS = [("18-49", 18, 49), ("50-64", 50, 64), ("65-79", 65, 79), ("80+", 80, 200)]


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _num(text, missing=("", "-9", "999")):
    return None if text.strip() in missing else float(text)


def _admissions(raw):
    out = []
    for r in _rows(raw / "admissions_w1.csv"):
        wt = _num(r["weight_lb"])
        cr = _num(r["creatinine_mgdl"])
        out.append((r["adm_id"], r["patient_id"], dt.date.fromisoformat(r["admit_date"]),
                    dt.date.fromisoformat(r["discharge_date"]),
                    {"1": "home", "2": "transfer", "3": "died"}.get(r["disposition"], "unknown"),
                    r["tcp_enrolled"] == "Y", _num(r["charlson"]), None if wt is None else wt * 0.45359237, cr))
    for r in _rows(raw / "admissions_w2.csv"):
        cr = _num(r["creat_umol_l"])
        out.append((r["adm_id"], r["patient_id"], dt.datetime.strptime(r["admit_dt"], "%d/%m/%Y").date(),
                    dt.datetime.strptime(r["disch_dt"], "%d/%m/%Y").date(),
                    {"HOME": "home", "TRANSFER": "transfer", "DIED": "died"}.get(r["disch_status"], "unknown"),
                    r["tcp"] == "1", _num(r["cci"]), _num(r["weight_kg"]), None if cr is None else cr / 88.4))
    return out


def _age(birth, day):
    return day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))


def logit(rows, terms):
    """Newton-Raphson logistic regression; {term: (or, lo, hi)} and n."""
    x = [[1.0] + [r[t] for t in terms] for r, _ in rows]
    y = [out for _, out in rows]
    k = len(terms) + 1
    beta = [0.0] * k
    for _ in range(100):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for xi, yi in zip(x, y):
            p = 1 / (1 + math.exp(-sum(b * v for b, v in zip(beta, xi))))
            w = p * (1 - p)
            for a in range(k):
                grad[a] += (yi - p) * xi[a]
                for b in range(a + 1):
                    hess[a][b] += w * xi[a] * xi[b]
        for a in range(k):
            for b in range(a):
                hess[b][a] = hess[a][b]
        inv = _inverse(hess)
        step = [sum(inv[a][b] * grad[b] for b in range(k)) for a in range(k)]
        beta = [b + s for b, s in zip(beta, step)]
        if max(abs(s) for s in step) < 1e-10:
            break
    out = {}
    for i, t in enumerate(terms, start=1):
        se = math.sqrt(inv[i][i])
        out[t] = {"or": math.exp(beta[i]), "ci_low": math.exp(beta[i] - 1.959963984540054 * se),
                  "ci_high": math.exp(beta[i] + 1.959963984540054 * se)}
    return out


def _inverse(m):
    n = len(m)
    a = [row[:] + [float(i == j) for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        piv = a[c][c]
        a[c] = [v / piv for v in a[c]]
        for r in range(n):
            if r != c and a[r][c]:
                f = a[r][c]
                a[r] = [v - f * w for v, w in zip(a[r], a[c])]
    return [row[n:] for row in a]


def analyse(raw, rows=False):
    raw = Path(raw)
    births, males = {}, {}
    for r in _rows(raw / "patients.csv"):
        births[r["patient_id"]] = dt.date.fromisoformat(r["birth_date"])
        males[r["patient_id"]] = r["sex"] in ("M", "1")
    adms = _admissions(raw)
    flow = {"admissions_raw": len(adms)}
    unique = {}
    for a in adms:
        unique.setdefault(a[0], a)
    adms = list(unique.values())
    flow["admissions_unique"] = len(adms)
    by_patient = {}
    for a in adms:
        by_patient.setdefault(a[1], []).append(a)
    flow["patients"] = len(by_patient)
    cohort = []
    steps = {"excluded_under18": 0, "excluded_not_discharged_home": 0, "excluded_incomplete_followup": 0,
             "excluded_missing_covariates": 0}
    for pid, stays in by_patient.items():
        stays.sort(key=lambda a: (a[2], a[0]))
        idx = stays[0]
        age = _age(births[pid], idx[2])
        if age < 18:
            steps["excluded_under18"] += 1
            continue
        if idx[4] != "home":
            steps["excluded_not_discharged_home"] += 1
            continue
        if idx[3] + dt.timedelta(days=30) > END:
            steps["excluded_incomplete_followup"] += 1
            continue
        ch, wt, cr = idx[6], idx[7], idx[8]
        if ch is None or wt is None or cr is None or not 30 <= wt <= 250:
            steps["excluded_missing_covariates"] += 1
            continue
        readmit = any(1 <= (s[2] - idx[3]).days <= 30 for s in stays[1:])
        cohort.append(({"program": float(idx[5]), "age10": age / 10, "male": float(males[pid]),
                        "charlson_2_3": float(2 <= ch <= 3), "charlson_4plus": float(ch >= 4),
                        "ckd": float(cr > 1.5), "weight10": wt / 10, "wave2": float(idx[2] >= WAVE2),
                        "age": age}, int(readmit)))
    if rows:
        return cohort
    flow.update(steps)
    flow["analytic_cohort"] = len(cohort)
    flow["readmitted_30d"] = sum(o for _, o in cohort)
    table2 = logit(cohort, TERMS)
    robust = {}
    for name, keep, terms in (
        ("wave1_only", lambda r: r["wave2"] == 0, [t for t in TERMS if t != "wave2"]),
        ("exclude_charlson_4plus", lambda r: r["charlson_4plus"] == 0, [t for t in TERMS if t != "charlson_4plus"]),
        ("age_65plus", lambda r: r["age"] >= 65, TERMS),
    ):
        sub = [row for row in cohort if keep(row[0])]
        robust[name] = dict(logit(sub, terms)["program"], n=len(sub))
    figure = {}
    for label, lo, hi in AGE_GROUPS:
        figure[label] = {}
        for arm, flag in (("program", 1.0), ("usual_care", 0.0)):
            sub = [o for r, o in cohort if lo <= r["age"] <= hi and r["program"] == flag]
            figure[label][arm] = {"n": len(sub), "readmitted": sum(sub),
                                  "rate": sum(sub) / len(sub) if sub else None}
    return {"flow": flow, "table2": table2, "robustness": robust, "figure1": figure}


def _index_stays(raw):
    births = {r["patient_id"]: dt.date.fromisoformat(r["birth_date"]) for r in _rows(raw / "patients.csv")}
    unique = {}
    for a in _admissions(raw):
        unique.setdefault(a[0], a)
    first = {}
    for a in unique.values():
        if a[1] not in first or (a[2], a[0]) < (first[a[1]][2], first[a[1]][0]):
            first[a[1]] = a
    return births, first


def followup_from_admission_count(raw):
    """Exclusions for follow-up if the 30 days were counted from admission (a paper erratum)."""
    raw = Path(raw)
    births, first = _index_stays(raw)
    return sum(1 for pid, a in first.items() if _age(births[pid], a[2]) >= 18 and a[4] == "home"
               and a[2] + dt.timedelta(days=30) > END)


def count_age_over(raw, age):
    """Analytic cohort members strictly older than ``age`` (a paper erratum)."""
    return sum(1 for row, _ in _cohort_rows(Path(raw)) if row["age"] > age)


def _cohort_rows(raw):
    return analyse(raw, rows=True)
