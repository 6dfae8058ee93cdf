"""The run loop and the `run.py` command line."""

import argparse
import sys
from pathlib import Path

from .checkpoint import CheckpointError, read_checkpoint, write_checkpoint
from .config import ConfigError, digest, read_config
from .diagnostics import History
from .initial import initial_field
from .mms import discrete_errors
from .model import build_model
from .output import format_summary, write_result
from .timestep import StepController, TimeStepError


class RunError(RuntimeError):
    pass


def start_state(model, cfg, restart, cfg_digest):
    if restart is None:
        q = initial_field(model.grid, cfg["initial"], model.mms)
        history = History()
        history.record(model.grid, q)
        return 0, 0.0, q, history
    return read_checkpoint(restart, cfg_digest)


def run(cfg, out=None, restart=None, checkpoint_every=None, checkpoint_dir=None, log=None):
    """Integrate a configuration to t_end; returns (q, t, step, history, model)."""
    model = build_model(cfg)
    cfg_digest = digest(cfg)
    t_end = float(cfg["time"]["t_end"])
    every = cfg["output"].get("checkpoint_every", 0) if checkpoint_every is None else checkpoint_every
    ckdir = Path(checkpoint_dir or cfg["output"].get("checkpoint_dir", "checkpoints"))
    step, t, q, history = start_state(model, cfg, restart, cfg_digest)
    controller = StepController(model.velocity, model.diffusivity, cfg["scheme"]["cfl"],
                                cfg["time"].get("max_dt"))
    done = t >= t_end
    while not done:
        dt, done = controller.next_dt(t, t_end)
        q = model.step(q, t, dt)
        t = t_end if done else t + dt
        step += 1
        history.record(model.grid, q, dt)
        if every and step % every == 0 and not done:
            write_checkpoint(ckdir, step, t, q, history, cfg_digest)
        if log is not None and step % 100 == 0:
            log(f"step {step} t={t:.6g} dt={dt:.3e}")
    extra = None
    if model.mms is not None:
        extra = discrete_errors(model.grid, q, model.mms, t)
    if out is not None:
        write_result(out, model.grid, q, t, step, history, extra)
    return q, t, step, history, model


def parse_args(argv):
    p = argparse.ArgumentParser(prog="run.py", description="Run the adr transport model.")
    p.add_argument("config", help="run configuration (.json or .toml)")
    p.add_argument("-o", "--output", default="result.npz", help="result archive (.npz)")
    p.add_argument("--restart", help="continue from this checkpoint file")
    p.add_argument("--checkpoint-every", type=int, help="write a checkpoint every N steps")
    p.add_argument("--checkpoint-dir", help="directory for checkpoints")
    p.add_argument("-q", "--quiet", action="store_true")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    log = None if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    try:
        cfg = read_config(args.config)
        q, t, step, history, model = run(cfg, args.output, args.restart, args.checkpoint_every,
                                         args.checkpoint_dir, log)
    except (ConfigError, CheckpointError, TimeStepError, RunError, ValueError, OSError) as exc:
        print(f"run.py: error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(format_summary(model.grid, t, step, history))
    return 0
