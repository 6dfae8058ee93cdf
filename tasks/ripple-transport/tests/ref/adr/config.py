"""Run configuration: JSON or TOML files, defaults and validation."""

import copy
import hashlib
import json
import tomllib
from pathlib import Path

from .boundary import check_boundaries
from .integrators import INTEGRATORS
from .reconstruct import LIMITERS

DEFAULTS = {
    "grid": {"lx": 1.0, "ly": 1.0},
    "boundaries": {"west": "periodic", "east": "periodic", "south": "periodic", "north": "periodic"},
    "velocity": {"kind": "uniform", "u": 0.0, "v": 0.0},
    "diffusion": {"kind": "constant", "d0": 0.0},
    "reaction": {"kind": "none"},
    "initial": {"kind": "gaussian"},
    "scheme": {"limiter": "minmod", "integrator": "rk2", "cfl": 0.4},
    "time": {},
    "output": {"checkpoint_every": 0},
}


class ConfigError(ValueError):
    """A configuration that cannot be run; the message says which key."""


def merge(base, extra):
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_config(path):
    path = Path(path)
    text = path.read_text()
    try:
        if path.suffix == ".toml":
            raw = tomllib.loads(text)
        else:
            raw = json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid {path.suffix[1:] or 'json'}: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a table")
    return normalise(raw)


def normalise(raw):
    cfg = merge(DEFAULTS, raw)
    validate(cfg)
    return cfg


def _positive_int(cfg, section, key):
    value = cfg.get(section, {}).get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"[{section}].{key} must be a positive integer, got {value!r}")


def _positive_number(cfg, section, key, optional=False):
    value = cfg.get(section, {}).get(key)
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ConfigError(f"[{section}].{key} must be a positive number, got {value!r}")


def validate(cfg):
    _positive_int(cfg, "grid", "nx")
    _positive_int(cfg, "grid", "ny")
    _positive_number(cfg, "grid", "lx")
    _positive_number(cfg, "grid", "ly")
    _positive_number(cfg, "time", "t_end")
    _positive_number(cfg, "time", "max_dt", optional=True)
    _positive_number(cfg, "scheme", "cfl")
    try:
        check_boundaries(cfg["boundaries"])
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    scheme = cfg["scheme"]
    if scheme["limiter"] not in LIMITERS:
        raise ConfigError(f"[scheme].limiter {scheme['limiter']!r} not one of {LIMITERS}")
    if scheme["integrator"] not in INTEGRATORS:
        raise ConfigError(f"[scheme].integrator {scheme['integrator']!r} not one of {tuple(INTEGRATORS)}")
    every = cfg["output"].get("checkpoint_every", 0)
    if isinstance(every, bool) or not isinstance(every, int) or every < 0:
        raise ConfigError("[output].checkpoint_every must be a non-negative integer")
    for side, kind in cfg["boundaries"].items():
        if kind == "dirichlet" and "mms" not in cfg and side not in cfg.get("boundary_values", {}):
            raise ConfigError(f"dirichlet boundary {side!r} needs [boundary_values].{side}")


def digest(cfg):
    """A stable fingerprint of the physics of a config (output settings excluded)."""
    physics = {k: v for k, v in cfg.items() if k != "output"}
    text = json.dumps(physics, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
