"""Seeded study tables for readmission-meta-repro (verifier side)."""

import csv
import io
import math
import random

SETTINGS = ["cardiology", "general-medicine", "geriatrics", "surgery", "oncology", "renal"]
COLUMNS = ["study_id", "registry", "year", "status", "setting", "followup_weeks",
           "n_t", "n_c", "analysed_t", "analysed_c", "events_t", "events_c"]


def _binom(rng, n, p):
    return sum(rng.random() < p for _ in range(n))


def _arm(rng, n, p, analysed):
    kept = n - rng.randint(0, max(1, n // 8)) if analysed else n
    return kept, _binom(rng, kept, p)


def studies(seed, settings=4, per_setting=(4, 9), rare=False, quirks=True, single=False,
            duplicates=True, analysed_columns=True, spreads=(0.0, 0.15, 0.35), dup_rate=0.22,
            analysed_rate=0.5):
    """Rows of studies.csv. `rare` makes zero cells common; `single` forces a k=1 setting."""
    rng = random.Random(seed)
    names = sorted(rng.sample(SETTINGS, settings))
    rows = []
    serial = 0
    for index, setting in enumerate(names):
        mu = rng.uniform(-0.6, 0.1)
        spread = rng.choice(spreads)
        count = 1 if single and index == 0 else rng.randint(*per_setting)
        for _ in range(count):
            serial += 1
            registry = f"NCT{rng.randint(10**7, 10**8 - 1)}"
            n_t, n_c = rng.randint(25, 70 if rare else 400), rng.randint(25, 70 if rare else 400)
            p_c = rng.uniform(0.005, 0.05) if rare else rng.uniform(0.12, 0.35)
            log_or = rng.gauss(mu, spread)
            odds = p_c / (1 - p_c) * math.exp(log_or)
            p_t = odds / (1 + odds)
            analysed = quirks and analysed_columns and rng.random() < analysed_rate
            a_t, e_t = _arm(rng, n_t, p_t, analysed)
            a_c, e_c = _arm(rng, n_c, p_c, analysed)
            row = {
                "study_id": f"S{serial:03d}", "registry": registry,
                "year": rng.randint(2004, 2023), "status": "published", "setting": setting,
                "followup_weeks": rng.choice([4, 4, 6, 8, 12, 26]),
                "n_t": n_t, "n_c": n_c,
                "analysed_t": a_t if analysed else "", "analysed_c": a_c if analysed else "",
                "events_t": e_t, "events_c": e_c,
            }
            if quirks and rng.random() < 0.12:
                row["status"] = "preprint"
            rows.append(row)
            if not quirks or count == 1:
                continue
            roll = rng.random()
            if roll < 0.10:
                row["status"] = "retracted"
            elif roll < 0.18:
                row["followup_weeks"] = rng.choice([1, 2, 3, 3.5])
            if duplicates and rng.random() < dup_rate:  # a second report of the same trial
                dup = dict(row)
                serial += 1
                dup["study_id"] = f"S{serial:03d}"
                dup["status"] = rng.choice(["published", "published", "preprint", "retracted"])
                dup["year"] = row["year"] + rng.choice([-1, 0, 1, 2])
                shift = rng.choice([-20, -5, 0, 0, 5, 30])
                dup["n_t"] = max(10, row["n_t"] + shift)
                dup["n_c"] = row["n_c"]
                dup["followup_weeks"] = rng.choice([row["followup_weeks"], 2, 12])
                if dup["analysed_t"] != "":
                    dup["analysed_t"] = min(dup["n_t"], int(dup["analysed_t"]) + shift)
                dup["events_t"] = min(int(dup["analysed_t"] or dup["n_t"]), max(0, e_t + rng.randint(-3, 3)))
                rows.append(dup)
    if single:  # a setting whose only report is retracted: its row must be omitted
        rows.append({**rows[-1], "study_id": f"S{serial + 1:03d}", "registry": "NCT00000001",
                     "setting": "pediatrics", "status": "retracted"})
    if quirks or rare:
        rng.shuffle(rows)
    return rows


def to_csv(rows):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


PUBLIC_SEED = 2024


HIDDEN_MAIN = {"spreads": (0.15, 0.3, 0.45), "dup_rate": 0.35, "analysed_rate": 0.6}


def public_rows():
    """The bundled studies.csv: exclusions by status and follow-up, nothing else."""
    return studies(PUBLIC_SEED, per_setting=(5, 9), duplicates=False, analysed_columns=False)


def fmt_row(name, stats, digits):
    """One printed Table 2 row (`digits` = decimals for ORs; I2 with 1, tau2 with 3)."""
    return [name, str(stats["k"]), str(stats["participants"])] + [
        f"{stats[key]:.{digits}f}" for key in ("or_fixed", "or_random", "ci_low", "ci_high")
    ] + [f"{stats['i2']:.1f}", f"{stats['tau2']:.3f}"]
