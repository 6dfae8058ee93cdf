"""Seeded raw registry extracts for transition-care-repro (shared by the build and the verifier).

One dataset is a patient file plus two admission extracts whose coding changed between
waves (units, date format, disposition codes, missing-value codes), with exact duplicate
patient rows, admissions extracted twice across waves, and boundary cases for age,
follow-up and the readmission window. ``write(seed, directory, **options)`` writes it."""

import csv
import datetime as dt
import math
import random
from pathlib import Path

START = dt.date(2019, 1, 1)
WAVE2 = dt.date(2021, 1, 1)
END = dt.date(2022, 12, 31)
REGIONS = ["north", "south", "east", "west"]
TRUE = {"const": -2.1, "program": -0.45, "age10": 0.18, "male": 0.15, "ch23": 0.35, "ch4": 0.7,
        "ckd": 0.4, "wt10": -0.05, "wave2": 0.1}


def _day(rng, lo, hi):
    return lo + dt.timedelta(days=rng.randrange((hi - lo).days + 1))


def _birth_for_age(rng, admit, age, edge):
    """A birth date giving ``age`` at ``admit``; with ``edge`` the birthday is within days of it."""
    if edge:
        shift = rng.choice([-1, 0, 1, 2])
        try:
            birth = admit.replace(year=admit.year - age)
        except ValueError:
            birth = admit.replace(year=admit.year - age, day=28)
        return birth + dt.timedelta(days=shift)
    return admit - dt.timedelta(days=int(age * 365.25) + rng.randrange(1, 360))


def dataset(seed, patients=900, edge_rate=0.06, program_effect=None):
    """(patients rows, wave 1 rows, wave 2 rows) of raw values (strings)."""
    rng = random.Random(seed)
    coef = dict(TRUE)
    coef["program"] = program_effect if program_effect is not None else rng.uniform(-0.7, -0.15)
    prows, w1, w2 = [], [], []
    adm_no = 0

    def add(pid, admit, los, disp, program, charlson, weight_kg, creat_mgdl, dup=False):
        nonlocal adm_no
        adm_no += 1
        aid = f"A{seed % 1000:03d}{adm_no:06d}"
        rec = (aid, pid, admit, admit + dt.timedelta(days=los), disp, program, charlson, weight_kg, creat_mgdl)
        (w1 if admit < WAVE2 else w2).append(rec)
        if dup or (admit < WAVE2 and rng.random() < 0.02):
            w2.append(rec)  # re-extracted in wave 2 with wave 2 coding
        return rec

    for n in range(patients):
        pid = f"P{seed % 1000:03d}{n:05d}"
        edge = rng.random() < edge_rate
        admit = _day(rng, START, END - dt.timedelta(days=rng.choice([0, 20, 40, 60, 400, 700])))
        if edge and rng.random() < 0.3:
            admit = END - dt.timedelta(days=rng.randrange(25, 45))
        age = 18 if edge and rng.random() < 0.4 else (65 if edge and rng.random() < 0.3 else
                                                      max(16, min(97, int(rng.gauss(66, 15)))))
        birth = _birth_for_age(rng, admit, age, edge)
        male = rng.random() < 0.48
        sex = ("M" if male else "F") if rng.random() < 0.55 else ("1" if male else "2")
        prows.append([pid, birth.isoformat(), sex, rng.choice(REGIONS)])
        if rng.random() < 0.03:
            prows.append(list(prows[-1]))
        los = rng.randrange(1, 15)
        disp = rng.choices(["home", "transfer", "died", "unknown"], [0.86, 0.06, 0.05, 0.03])[0]
        charlson = min(10, int(rng.expovariate(0.55)))
        weight = max(35.0, rng.gauss(78, 17))
        creat = max(0.4, rng.lognormvariate(0.05, 0.35))
        program = disp == "home" and rng.random() < 0.4
        if edge and rng.random() < 0.35 and disp != "home":
            # an earlier stay ending in transfer/death-like status, then a later home discharge
            add(pid, admit, los, disp, False, charlson, weight, creat)
            admit = admit + dt.timedelta(days=los + rng.randrange(40, 200))
            disp, los = "home", rng.randrange(1, 10)
            if admit > END:
                continue
        missing_ch = rng.random() < 0.04
        first = add(pid, admit, los, disp, program, None if missing_ch else charlson, weight, creat,
                    dup=edge and rng.random() < 0.3)
        if rng.random() < 0.02:
            w1.append(first) if first[2] < WAVE2 else w2.append(first)
        if disp != "home":
            if rng.random() < 0.3:
                add(pid, first[3] + dt.timedelta(days=rng.randrange(5, 60)), rng.randrange(1, 8), "home", False,
                    charlson, weight, creat)
            continue
        age_at = (admit - birth).days / 365.25
        eta = (coef["const"] + coef["program"] * program + coef["age10"] * (age_at - 65) / 10 + coef["male"] * male
               + coef["ch23"] * (2 <= charlson <= 3) + coef["ch4"] * (charlson >= 4) + coef["ckd"] * (creat > 1.5)
               + coef["wt10"] * (weight - 78) / 10 + coef["wave2"] * (admit >= WAVE2))
        disch = first[3]
        if rng.random() < 1 / (1 + math.exp(-eta)):
            gap = rng.randrange(1, 31) if not edge else rng.choice([1, 30])
            add(pid, disch + dt.timedelta(days=gap), rng.randrange(1, 8), "home", False, charlson, weight, creat)
        elif edge and rng.random() < 0.5:
            gap = rng.choice([0, 31])
            add(pid, disch + dt.timedelta(days=gap), rng.randrange(1, 5), "home", False, charlson, weight, creat)
        if rng.random() < 0.15:
            add(pid, disch + dt.timedelta(days=rng.randrange(45, 400)), rng.randrange(1, 8), "home", False,
                charlson, weight, creat)
    rng.shuffle(prows)
    return prows, [_w1_row(rng, r) for r in w1 if r[2] <= END], [_w2_row(rng, r) for r in w2 if r[2] <= END]


def _w1_row(rng, rec):
    aid, pid, admit, disch, disp, program, charlson, weight, creat = rec
    code = {"home": "1", "transfer": "2", "died": "3", "unknown": "9"}[disp]
    wt = "999" if rng.random() < 0.02 else f"{weight / 0.45359237:.1f}"
    if rng.random() < 0.004:
        wt = f"{weight * 3:.1f}"  # implausible entry
    return [aid, pid, admit.isoformat(), disch.isoformat(), code, "Y" if program else "N",
            "" if charlson is None else str(charlson), wt, "" if rng.random() < 0.01 else f"{creat:.2f}"]


def _w2_row(rng, rec):
    aid, pid, admit, disch, disp, program, charlson, weight, creat = rec
    code = {"home": "HOME", "transfer": "TRANSFER", "died": "DIED", "unknown": "UNK"}[disp]
    ch = ("-9" if rng.random() < 0.7 else "") if charlson is None else str(charlson)
    return [aid, pid, admit.strftime("%d/%m/%Y"), disch.strftime("%d/%m/%Y"), code, "1" if program else "0", ch,
            "-9" if rng.random() < 0.02 else f"{weight:.1f}", f"{creat * 88.4:.0f}"]


HEADERS = {
    "patients.csv": ["patient_id", "birth_date", "sex", "region"],
    "admissions_w1.csv": ["adm_id", "patient_id", "admit_date", "discharge_date", "disposition", "tcp_enrolled",
                          "charlson", "weight_lb", "creatinine_mgdl"],
    "admissions_w2.csv": ["adm_id", "patient_id", "admit_dt", "disch_dt", "disch_status", "tcp", "cci",
                          "weight_kg", "creat_umol_l"],
}


def write(seed, directory, **options):
    prows, w1, w2 = dataset(seed, **options)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, rows in zip(HEADERS, (prows, w1, w2)):
        with open(directory / name, "w", newline="") as handle:
            out = csv.writer(handle)
            out.writerow(HEADERS[name])
            out.writerows(rows)
