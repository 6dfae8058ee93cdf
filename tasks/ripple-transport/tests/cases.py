"""Seeded hidden configurations for ripple-transport (see README.md).

Every generator draws from its own random.Random so that categories do not
shift each other when one changes; all configurations are plain dicts in the
run.py JSON format.
"""

import random

PERIODIC = {"west": "periodic", "east": "periodic", "south": "periodic", "north": "periodic"}
WALLS = {"west": "wall", "east": "wall", "south": "wall", "north": "wall"}
CHANNEL = {"west": "periodic", "east": "periodic", "south": "wall", "north": "wall"}
RESTART_MIN_STEPS = 16  # restart cases: at least this many steps (checkpoints are taken after step 3-12)

PUBLIC_CONFIG = {
    "grid": {"nx": 48, "ny": 48, "lx": 1.0, "ly": 1.0},
    "boundaries": dict(PERIODIC),
    "velocity": {"kind": "uniform", "u": 1.0, "v": 0.5},
    "diffusion": {"kind": "constant", "d0": 0.002},
    "initial": {"kind": "gaussian", "x0": 0.3, "y0": 0.4, "width": 0.08, "background": 0.1},
    "scheme": {"limiter": "mc", "integrator": "rk2", "cfl": 0.45},
    "time": {"t_end": 0.5},
}


def _rng(seed, name):
    return random.Random(f"{seed}:{name}")


def _grid(r, lo=20, hi=36, aniso=True):
    nx = r.randrange(lo, hi + 1, 2)
    ny = r.randrange(lo, hi + 1, 2)
    lx = round(r.uniform(0.8, 1.6), 3)
    ly = round(r.uniform(0.5, 1.2), 3) if aniso else lx
    if aniso and abs(lx / nx - ly / ny) < 0.15 * lx / nx:
        ly = round(ly * 0.7, 3)
    return {"nx": nx, "ny": ny, "lx": lx, "ly": ly}


def _initial(r, grid):
    kind = r.choice(["gaussian", "gaussian", "sine", "slotted"])
    lx, ly = grid["lx"], grid["ly"]
    if kind == "gaussian":
        return {"kind": "gaussian", "x0": round(r.uniform(0.3, 0.7) * lx, 3),
                "y0": round(r.uniform(0.3, 0.7) * ly, 3), "width": round(r.uniform(0.08, 0.15) * min(lx, ly), 4),
                "background": round(r.uniform(0.05, 0.5), 3), "amplitude": round(r.uniform(0.5, 2.0), 3)}
    if kind == "sine":
        return {"kind": "sine", "kx": r.randint(1, 2), "ky": r.randint(1, 2),
                "background": round(r.uniform(1.0, 2.0), 3), "amplitude": round(r.uniform(0.2, 0.8), 3)}
    return {"kind": "slotted", "x0": round(0.2 * lx, 3), "x1": round(r.uniform(0.45, 0.6) * lx, 3),
            "y0": round(0.25 * ly, 3), "y1": round(r.uniform(0.5, 0.7) * ly, 3),
            "background": round(r.uniform(0.1, 0.4), 3), "amplitude": 1.0}


def _scheme(r, cfl=None, integrators=("rk2", "rk3")):
    return {"limiter": r.choice(["minmod", "vanleer", "mc", "none"]),
            "integrator": r.choice(list(integrators)),
            "cfl": cfl if cfl is not None else round(r.uniform(0.3, 0.6), 3)}


def _diffusion(r, allow_zero=False):
    d0 = 0.0 if allow_zero and r.random() < 0.2 else round(r.uniform(0.002, 0.02), 4)
    if r.random() < 0.5:
        return {"kind": "modulated", "d0": d0, "eps": round(r.uniform(-0.6, 0.6), 3)}
    return {"kind": "constant", "d0": d0}


def _closed_flow(r, bcs):
    a = round(r.uniform(0.05, 0.2), 4)
    if bcs == WALLS:
        return {"kind": "cellular", "amplitude": a, "kx": 1, "ky": r.choice([1, 2])}
    if bcs == CHANNEL:
        return {"kind": "shear", "amplitude": round(r.uniform(0.3, 1.0), 3), "u": round(r.uniform(-0.5, 0.5), 3)}
    return {"kind": "periodic_cells", "amplitude": a, "u": round(r.uniform(-0.5, 0.5), 3),
            "v": round(r.uniform(-0.5, 0.5), 3), "kx": 1, "ky": r.choice([1, 2])}


def conservation_cases(seed, n=6):
    r = _rng(seed, "conservation")
    out = []
    for i in range(n):
        bcs = [PERIODIC, WALLS, CHANNEL][i % 3]
        grid = _grid(r)
        out.append({"grid": grid, "boundaries": dict(bcs), "velocity": _closed_flow(r, bcs),
                    "diffusion": _diffusion(r), "initial": _initial(r, grid),
                    "scheme": _scheme(r), "time": {"t_end": round(r.uniform(0.2, 0.4), 3)}})
    return out


def _open_boundaries(r):
    while True:
        kinds = {"west": r.choice(["periodic", "wall", "dirichlet"]),
                 "south": r.choice(["periodic", "wall", "dirichlet", "dirichlet"])}
        kinds["east"] = "periodic" if kinds["west"] == "periodic" else r.choice(["wall", "dirichlet"])
        kinds["north"] = "periodic" if kinds["south"] == "periodic" else r.choice(["wall", "dirichlet"])
        if "periodic" not in (kinds["west"], kinds["south"]) or r.random() < 0.3:
            return kinds


def _flow_for(r, kinds):
    if all(k == "wall" for k in kinds.values()) or r.random() < 0.4:
        return {"kind": "cellular", "amplitude": round(r.uniform(0.05, 0.2), 4), "kx": 1, "ky": 1}
    u = round(r.uniform(-1.0, 1.0), 3)
    v = round(r.uniform(-1.0, 1.0), 3)
    if kinds["west"] == "wall":
        u = 0.0
    if kinds["south"] == "wall":
        v = 0.0
    return {"kind": "uniform", "u": u, "v": v}


def field_cases(seed, n=10):
    r = _rng(seed, "fields")
    out = []
    for _ in range(n):
        grid = _grid(r)
        kinds = _open_boundaries(r)
        cfg = {"grid": grid, "boundaries": kinds, "velocity": _flow_for(r, kinds),
               "diffusion": _diffusion(r, allow_zero=True), "initial": _initial(r, grid),
               "scheme": _scheme(r), "time": {"t_end": round(r.uniform(0.15, 0.35), 3)}}
        values = {side: round(r.uniform(0.0, 1.5), 3) for side, k in kinds.items() if k == "dirichlet"}
        if values:
            cfg["boundary_values"] = values
        out.append(cfg)
    return out


def reaction_cases(seed, n=6):
    r = _rng(seed, "reaction")
    out = []
    for i in range(n):
        grid = _grid(r)
        bcs = [PERIODIC, WALLS, CHANNEL][i % 3]
        reaction = ({"kind": "logistic", "rate": round(r.uniform(1.0, 4.0), 3),
                     "capacity": round(r.uniform(1.5, 3.0), 3)} if i % 2 == 0 else
                    {"kind": "decay", "rate": round(r.uniform(0.5, 3.0), 3)})
        out.append({"grid": grid, "boundaries": dict(bcs), "velocity": _closed_flow(r, bcs),
                    "diffusion": _diffusion(r), "reaction": reaction, "initial": _initial(r, grid),
                    "scheme": _scheme(r), "time": {"t_end": round(r.uniform(0.2, 0.4), 3)}})
    return out


def mms_cases(seed, n=4):
    """Manufactured-solution studies: a base config, refined twice by 2 in the verifier."""
    r = _rng(seed, "mms")
    out = []
    for i in range(n):
        lx = round(r.uniform(0.8, 1.5), 3)
        ly = round(r.uniform(0.5, 1.0), 3)
        kinds = dict(PERIODIC)
        if i % 2 == 0:
            kinds.update(south="dirichlet", north="dirichlet")
        if i % 4 == 2 or i == 3:
            kinds.update(west="dirichlet", east="dirichlet")
        diffusion = ({"kind": "modulated", "d0": round(r.uniform(0.005, 0.02), 4),
                      "eps": round(r.uniform(0.2, 0.5), 3)} if i % 2 else
                     {"kind": "constant", "d0": round(r.uniform(0.005, 0.02), 4)})
        cfg = {"grid": {"nx": 12, "ny": 8 + 2 * r.randint(0, 2), "lx": lx, "ly": ly},
               "boundaries": kinds,
               "velocity": {"kind": "uniform", "u": round(r.uniform(0.4, 1.0), 3), "v": round(r.uniform(-0.6, 0.6), 3)},
               "diffusion": diffusion,
               "reaction": {"kind": "decay", "rate": round(r.uniform(0.3, 1.5), 3)} if i >= 2 else {"kind": "none"},
               "mms": {"c0": 1.0, "amplitude": round(r.uniform(0.2, 0.5), 3), "omega": round(r.uniform(1.0, 3.0), 3),
                       "phase": 0.0 if kinds["south"] == "periodic" else round(r.uniform(0.1, 1.0), 3)},
               "scheme": {"limiter": r.choice(["none", "mc"]), "integrator": "rk3" if i % 2 == 0 else r.choice(["rk2", "rk3"]),
                          "cfl": round(r.uniform(0.4, 0.6), 3)},
               "time": {"t_end": round(r.uniform(0.2, 0.35), 3)}}
        out.append(cfg)
    return out


def stepping_cases(seed, n=6):
    """Fast or diffusive flows at high CFL numbers, end times off the step grid."""
    r = _rng(seed, "stepping")
    out = []
    for i in range(n):
        grid = _grid(r)
        if i % 2 == 0:
            flow = {"kind": "uniform", "u": round(r.uniform(-0.6, 0.6), 3), "v": round(r.choice([-1, 1]) * r.uniform(1.5, 3.0), 3)}
            diffusion = {"kind": "constant", "d0": round(r.uniform(0.001, 0.005), 4)}
        else:
            flow = {"kind": "periodic_cells", "amplitude": round(r.uniform(0.05, 0.1), 3), "u": 0.2, "v": 0.1}
            diffusion = {"kind": "modulated", "d0": round(r.uniform(0.02, 0.05), 4), "eps": 0.3}
        time = {"t_end": round(r.uniform(0.1, 0.25), 4)}
        if i == 5:
            time["max_dt"] = round(r.uniform(0.002, 0.004), 5)
        out.append({"grid": grid, "boundaries": dict(PERIODIC), "velocity": flow, "diffusion": diffusion,
                    "initial": _initial(r, grid),
                    "scheme": {"limiter": r.choice(["minmod", "mc", "vanleer"]), "integrator": r.choice(["rk2", "rk3"]),
                               "cfl": round(r.uniform(0.8, 0.98), 3)},
                    "time": time})
    return out


def restart_cases(seed, n=6):
    """Configurations and the step after which a checkpoint is taken and resumed. Each run
    is capped at t_end / RESTART_MIN_STEPS per step, so it has a step to resume after (a
    slow flow with no diffusion would otherwise end in one step, and no checkpoint exists)."""
    r = _rng(seed, "restart")
    pool = conservation_cases(seed + 1, 3) + field_cases(seed + 2, 2) + reaction_cases(seed + 3, 1)
    out = []
    for cfg in pool[:n]:
        time = cfg["time"]
        cap = time["t_end"] / RESTART_MIN_STEPS
        cfg = {**cfg, "time": {**time, "max_dt": min(time.get("max_dt", cap), cap)}}
        out.append((cfg, r.randint(3, 12)))
    return out


def performance_cases(seed, n=2):
    r = _rng(seed, "performance")
    out = []
    for i in range(n):
        nx = r.randrange(150, 181, 2)
        ny = r.randrange(120, 151, 2)
        bcs = [PERIODIC, WALLS][i % 2]
        out.append({"grid": {"nx": nx, "ny": ny, "lx": 1.0, "ly": round(ny / nx, 4)},
                    "boundaries": dict(bcs), "velocity": _closed_flow(r, bcs),
                    "diffusion": {"kind": "constant", "d0": 0.0005}, "initial": {"kind": "gaussian", "width": 0.1,
                                                                                   "background": 0.2},
                    "scheme": {"limiter": r.choice(["mc", "vanleer"]), "integrator": "rk3", "cfl": 0.5},
                    "time": {"t_end": 0.06 if bcs == PERIODIC else 0.2}})
    return out
