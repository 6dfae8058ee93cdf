"""Verifier-side reference for the Table 2 reproduction (kept apart from the oracle)."""

import csv
import math

Z = 1.959964


def _int(text):
    text = (text or "").strip()
    return int(text) if text else None


def read(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def select(rows):
    """Apply the paper's inclusion steps in order; return included study dicts."""
    live = [r for r in rows if r["status"].strip().lower() != "retracted"]
    best = {}
    for r in live:
        key = r["registry"].strip()
        size = int(r["n_t"]) + int(r["n_c"])
        rank = (size, int(r["year"]))
        if key not in best or rank > best[key][0]:
            best[key] = (rank, r)
    kept = [r for _, r in best.values()]
    kept = [r for r in kept if float(r["followup_weeks"]) >= 4]
    studies = []
    for r in kept:
        nt = _int(r["analysed_t"]) or int(r["n_t"])
        nc = _int(r["analysed_c"]) or int(r["n_c"])
        a, c = int(r["events_t"]), int(r["events_c"])
        b, d = nt - a, nc - c
        if (a == 0 and c == 0) or (b == 0 and d == 0):
            continue
        studies.append({"setting": r["setting"].strip(), "cells": (a, b, c, d), "n": nt + nc})
    return studies


def effect(cells):
    a, b, c, d = cells
    if 0 in cells:
        a, b, c, d = a + 0.5, b + 0.5, c + 0.5, d + 0.5
    return math.log((a * d) / (b * c)), 1 / a + 1 / b + 1 / c + 1 / d


def pool(studies):
    ys, vs = zip(*(effect(s["cells"]) for s in studies))
    w = [1 / v for v in vs]
    sw = sum(w)
    fixed = sum(wi * yi for wi, yi in zip(w, ys)) / sw
    q = sum(wi * (yi - fixed) ** 2 for wi, yi in zip(w, ys))
    df = len(ys) - 1
    if df == 0:
        tau2 = 0.0
    else:
        tau2 = max(0.0, (q - df) / (sw - sum(wi * wi for wi in w) / sw))
    i2 = 0.0 if df == 0 or q <= 0 else max(0.0, (q - df) / q) * 100
    wr = [1 / (v + tau2) for v in vs]
    mu = sum(wi * yi for wi, yi in zip(wr, ys)) / sum(wr)
    se = math.sqrt(1 / sum(wr))
    return {
        "k": len(ys),
        "participants": sum(s["n"] for s in studies),
        "or_fixed": math.exp(fixed),
        "or_random": math.exp(mu),
        "ci_low": math.exp(mu - Z * se),
        "ci_high": math.exp(mu + Z * se),
        "i2": i2,
        "tau2": tau2,
    }


def table(path):
    """{row name: stats} for the subgroups (alphabetical) and Overall."""
    studies = select(read(path))
    out = {}
    for setting in sorted({s["setting"] for s in studies}):
        out[setting] = pool([s for s in studies if s["setting"] == setting])
    out["Overall"] = pool(studies)
    return out
