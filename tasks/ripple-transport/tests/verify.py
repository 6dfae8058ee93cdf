"""Hidden checks for ripple-transport. Writes /logs/verifier/scorecard.json.

The agent's /app/run.py runs through ``run_untrusted`` (as nobody, /tests and
/logs/verifier locked); every run gets a root-owned config file and writes its
result (and checkpoints) into a scratch directory.  Reference results come from
the verified model in /tests/ref, computed in this process (fields) or run as a
root subprocess in the same conditions (timings)."""

import io
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "ref"))

import numpy as np  # noqa: E402

import cases as gen  # noqa: E402
from adr.config import normalise  # noqa: E402
from adr.driver import run as ref_run  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
KEYS = ("q", "t", "steps", "mass", "dts")
RUN_TIMEOUT = 120.0
FULL_RATIO = 3.0  # performance: full credit up to this multiple of the reference time
ZERO_RATIO = 10.0  # ... and none from this one
PERF_ROUNDS = 3  # performance: at most this many alternating reference and agent runs


class Runner:
    def __init__(self):
        self.inputs = Path(input_dir())
        self.count = 0

    def config_file(self, cfg):
        self.count += 1
        path = self.inputs / f"case{self.count:03d}.json"
        path.write_text(json.dumps(cfg))
        return path

    def run(self, cfg, extra=(), scratch=None, timeout=RUN_TIMEOUT, config_path=None):
        """The agent's result dict (numpy arrays), or None; and the wall time."""
        src = config_path or self.config_file(cfg)
        scratch = scratch or scratch_dir()
        out = Path(scratch) / "result.npz"
        if out.exists():
            out.unlink()
        proc = run_untrusted([sys.executable, str(APP / "run.py"), str(src), "-o", str(out), "-q", *extra],
                             timeout=timeout, cwd=str(APP), scratch=scratch)
        if not proc.ok:
            return None, proc.elapsed
        return load_result(out), proc.elapsed


def load_result(path):
    raw = read_output(path, binary=True)
    if raw is None:
        return None
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            got = {key: np.array(data[key]) for key in data.files}
    except Exception:  # noqa: BLE001 - any unreadable archive scores 0
        return None
    if not all(k in got for k in KEYS):
        return None
    return got


class Reference:
    def __init__(self, cfg):
        self.cfg = normalise(cfg)
        q, t, step, history, model = ref_run(self.cfg)
        self.q = q
        self.t = t
        self.steps = step
        self.mass, self.dts = history.arrays()
        self.grid = model.grid
        self.model = model


def log_score(err, good, bad):
    """1 at err <= good, 0 at err >= bad, linear in log10(err) between."""
    if err is None or not math.isfinite(err):
        return 0.0
    if err <= good:
        return 1.0
    if err >= bad:
        return 0.0
    return (math.log10(bad) - math.log10(err)) / (math.log10(bad) - math.log10(good))


def field_error(got, ref):
    if got is None:
        return None
    q = got["q"]
    if q.shape != ref.q.shape or not np.issubdtype(q.dtype, np.floating) or not np.all(np.isfinite(q)):
        return None
    scale = max(float(np.max(np.abs(ref.q))), 1e-12)
    return float(np.max(np.abs(q - ref.q))) / scale


def time_ok(got, ref):
    try:
        return abs(float(got["t"]) - ref.t) <= 1e-12 * max(1.0, ref.t)
    except (TypeError, ValueError):
        return False


def steps_add_up(got, ref):
    """The step sizes sum to t_end and the mass record has one entry per step plus one."""
    dts, mass = got["dts"], got["mass"]
    return (dts.ndim == 1 and mass.ndim == 1 and mass.size == dts.size + 1
            and abs(float(np.sum(dts)) - ref.t) <= 1e-12 * max(1.0, ref.t))


def field_score(got, ref, good=1e-9, bad=1e-4):
    if got is None or not time_ok(got, ref):
        return 0.0
    return log_score(field_error(got, ref), good, bad)


def mass_report_ok(got, ref):
    """The reported mass history is the domain integral of the reported fields."""
    if got is None:
        return False
    mass = got["mass"]
    try:
        steps = int(got["steps"])
    except (TypeError, ValueError):
        return False
    if mass.ndim != 1 or mass.size != steps + 1 or steps != ref.steps:
        return False
    area = ref.grid.dx * ref.grid.dy
    final = float(np.sum(got["q"])) * area
    return (abs(float(mass[-1]) - final) <= 1e-12 * abs(final) + 1e-300
            and abs(float(mass[0]) - float(ref.mass[0])) <= 1e-12 * abs(float(ref.mass[0])))


def drift_score(got, ref):
    if got is None or got["q"].shape != ref.q.shape:
        return 0.0
    area = ref.grid.dx * ref.grid.dy
    m0 = float(ref.mass[0])
    drift = abs(float(np.sum(got["q"])) * area - m0) / abs(m0)
    return log_score(drift, 1e-12, 1e-7)


def mms_errors(got, ref):
    if got is None or got["q"].shape != ref.q.shape or not time_ok(got, ref):
        return None
    x, y = ref.grid.centres()
    e = got["q"] - ref.model.mms.exact(x, y, ref.t)
    if not np.all(np.isfinite(e)):
        return None
    return float(np.sqrt(np.mean(e * e)))


def refined(cfg, factor):
    out = json.loads(json.dumps(cfg))
    out["grid"]["nx"] *= factor
    out["grid"]["ny"] *= factor
    return out


def order_of(errors, sizes):
    if any(e is None or e <= 0 for e in errors):
        return None
    return math.log(errors[-2] / errors[-1]) / math.log(sizes[-1] / sizes[-2])


def convergence_score(runner, cfg):
    sizes, got_err, ref_err = [], [], []
    for level in range(3):
        c = refined(cfg, 2 ** level)
        ref = Reference(c)
        got, _ = runner.run(c)
        sizes.append(c["grid"]["nx"])
        got_err.append(mms_errors(got, ref))
        x, y = ref.grid.centres()
        ref_err.append(float(np.sqrt(np.mean((ref.q - ref.model.mms.exact(x, y, ref.t)) ** 2))))
    got_order, ref_order = order_of(got_err, sizes), order_of(ref_err, sizes)
    if got_order is None:
        return 0.0, "no result"
    gap = ref_order - got_order
    order_part = 1.0 if gap <= 0.1 else max(0.0, (0.5 - gap) / 0.4)
    error_part = log_score(got_err[-1] / ref_err[-1], 1.1, 2.0) if got_err[-1] > ref_err[-1] else 1.0
    return min(order_part, error_part), f"order {got_order:.2f} (reference {ref_order:.2f})"


def identical(a, b):
    if a is None or b is None:
        return False
    for key in KEYS:
        x, y = np.asarray(a[key]), np.asarray(b[key])
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            return False
    return True


def restart_score(runner, cfg, k):
    """(score, why not) of one case: a run checkpointing every k steps, resumed after step k
    (every restart case runs more than 12 steps, see cases.restart_cases)."""
    ref = Reference(cfg)
    src = runner.config_file(cfg)
    scratch = scratch_dir()
    ckdir = Path(scratch) / "ckpt"
    full, _ = runner.run(cfg, ["--checkpoint-every", str(k), "--checkpoint-dir", str(ckdir)],
                         scratch=scratch, config_path=src)
    if field_score(full, ref) < 1.0:
        return 0.0, "the checkpointing run is wrong"
    ckpt = ckdir / f"ckpt_{k:06d}.npz"
    resumed, _ = runner.run(cfg, ["--restart", str(ckpt)], scratch=scratch, config_path=src)
    if resumed is None:
        return 0.0, f"no result resumed after step {k}"
    return (1.0, "") if identical(full, resumed) else (0.0, f"resumed after step {k}: differs")


def reference_time(cfg, inputs):
    path = inputs / "perf-ref.json"
    path.write_text(json.dumps(cfg))
    # the reference's result goes where only root can read it: the input directory is
    # readable by the agent's program, which could otherwise hand this result back as its own
    with tempfile.TemporaryDirectory(prefix="perf-ref-") as private:
        out = Path(private) / "perf-ref.npz"
        start = time.perf_counter()
        subprocess.run([sys.executable, str(HERE / "ref" / "run.py"), str(path), "-o", str(out), "-q"],
                       check=True, cwd=str(HERE / "ref"), stdout=subprocess.DEVNULL,
                       env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                            "PYTHONDONTWRITEBYTECODE": "1"})
        return time.perf_counter() - start


def performance_score(runner, cfg):
    """The agent's best run against the reference's best, timed in alternation (a burst of
    load on the machine then slows both sides alike); more rounds only while the agent is
    slower than FULL_RATIO. The first run must give the right field; later runs count when
    they do."""
    ref = Reference(cfg)
    t_ref = elapsed = math.inf
    for round_ in range(PERF_ROUNDS):
        t_ref = min(t_ref, reference_time(cfg, runner.inputs))
        got, took = runner.run(cfg, timeout=ZERO_RATIO * t_ref + 2)
        correct = field_score(got, ref, 1e-9, 1e-8) == 1.0
        if not correct and round_ == 0:
            return 0.0, f"wrong or no result (reference {t_ref:.2f}s)"
        if correct:
            elapsed = min(elapsed, took)
        if elapsed <= FULL_RATIO * t_ref:
            break
    ratio = elapsed / t_ref
    score = 1.0 if ratio <= FULL_RATIO else max(0.0, math.log(ZERO_RATIO / ratio) / math.log(ZERO_RATIO / FULL_RATIO))
    return score, f"{elapsed:.2f}s vs reference {t_ref:.2f}s (x{ratio:.2f}, best of {round_ + 1})"


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def scored(score_case, runner, cases):
    """The mean of ``score_case`` over the cases, and its messages joined."""
    results = [score_case(runner, cfg) for cfg in cases]
    return mean(score for score, _ in results), "; ".join(msg for _, msg in results)


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    runner = Runner()
    note = f"seed {seed}"

    pub_ref = Reference(gen.PUBLIC_CONFIG)
    pub, _ = runner.run(gen.PUBLIC_CONFIG)
    card.check("public_case_runs", pub is not None and time_ok(pub, pub_ref) and steps_add_up(pub, pub_ref),
               weight=1, visibility="public")
    public_matches = field_score(pub, pub_ref) == 1.0 and mass_report_ok(pub, pub_ref)
    card.check("public_case_matches", public_matches, weight=1, visibility="public")

    diagnostics = []

    scores = []
    for cfg in gen.conservation_cases(seed):
        ref = Reference(cfg)
        got, _ = runner.run(cfg)
        scores.append(min(field_score(got, ref, 1e-9, 1e-5), drift_score(got, ref)))
        diagnostics.append(mass_report_ok(got, ref))
    card.add("closed_conservation", mean(scores), weight=3, message=note)

    scores = []
    for cfg in gen.field_cases(seed):
        ref = Reference(cfg)
        got, _ = runner.run(cfg)
        scores.append(field_score(got, ref))
        diagnostics.append(mass_report_ok(got, ref))
    card.add("open_boundary_fields", mean(scores), weight=3, message=note)

    scores = []
    for cfg in gen.reaction_cases(seed):
        ref = Reference(cfg)
        got, _ = runner.run(cfg)
        scores.append(field_score(got, ref))
        diagnostics.append(mass_report_ok(got, ref))
    card.add("reaction_fields", mean(scores), weight=2, message=note)

    score, notes = scored(convergence_score, runner, gen.mms_cases(seed))
    card.add("convergence_order", score, weight=3, message=f"{note}: {notes}")

    scores = []
    for cfg in gen.stepping_cases(seed):
        ref = Reference(cfg)
        got, _ = runner.run(cfg)
        same_steps = got is not None and int(got["steps"]) == ref.steps
        scores.append(field_score(got, ref) if same_steps else 0.0)
    card.add("adaptive_stepping", mean(scores), weight=2, message=note)

    results = [restart_score(runner, cfg, k) for cfg, k in gen.restart_cases(seed)]
    failures = "; ".join(f"case {i}: {why}" for i, (_, why) in enumerate(results) if why)
    card.add("restart_equivalence", mean(score for score, _ in results), weight=3,
             message=f"{note}: {failures}" if failures else note)

    card.add("mass_diagnostics", mean(float(ok) for ok in diagnostics), weight=1, message=note)

    if public_matches:
        score, notes = scored(performance_score, runner, gen.performance_cases(seed))
        card.add("performance", score, weight=3, message=f"{note}: {notes}")
    else:  # a model that is wrong on the bundled case is not timed (its large grids would be wrong too)
        card.add("performance", 0.0, weight=3, message=f"{note}: not timed, the bundled case does not match")
    card.write("/logs/verifier/scorecard.json")


if __name__ == "__main__":
    main()
