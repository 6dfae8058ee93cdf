"""Hidden checks for logq-hardening. Writes /logs/verifier/scorecard.json.

Every logq run goes through ``run_untrusted`` (as nobody, with /tests and
/logs/verifier locked and no verifier environment), the agent's /app/logq.py
and the shipped baseline alike, so the speed race runs both under the same
conditions. The baseline runs from a copy in a root-owned input directory (it is
the public shipped tool), and its scratch directory, which holds the right
answer for the timing query, is deleted before the agent's program runs.
Hidden logs live in the input directory; each run writes its output (and any
injection marker) into its own scratch directory."""

import json
import math
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import baseline_logq as baseline  # noqa: E402
import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SCORECARD = os.environ.get("LHTB_SCORECARD", "/logs/verifier/scorecard.json")
FULL_SPEEDUP = 5.0   # full credit at >= 5x the shipped implementation
ZERO_SPEEDUP = 1.5   # nothing at <= 1.5x
PERF_RECORDS = 12000
PERF_USERS = 1800
PERF_ROUNDS = 3     # at most this many alternating baseline and candidate runs
INJECTIONS = 20      # seeded payloads per family (calls, shapes)
MARKER = "lhtb-pwned"  # created in the run's working directory by a payload that runs


def run_logq(program, log, where, group_by, top, timeout=60, scratch=None, cwd=APP):
    """(returncode, parsed output or None, seconds, scratch dir) of one untrusted run."""
    scratch = Path(scratch or scratch_dir())
    out = scratch / "out.json"
    args = [sys.executable, str(program), str(log), "--group-by", group_by, "--top", str(top), "-o", str(out)]
    if where is not None:
        args += ["--where", where]
    proc = run_untrusted(args, timeout=timeout, cwd=str(cwd), scratch=str(scratch))
    if proc.timed_out:
        return None, None, timeout, scratch
    result = None
    text = read_output(out) if proc.returncode == 0 else None
    if text is not None:
        try:
            result = json.loads(text)
        except ValueError:
            result = None
    return proc.returncode, result, proc.elapsed, scratch


def expected(records, where, group_by, top):
    kept = records if where is None else [r for r in records if baseline.matches(where, r)]
    return {"matched": len(kept), "groups": baseline.summarise(kept, group_by, top)}


def semantics(records, log, queries):
    good, failures = 0, []
    for where, group_by, top in queries:
        code, got, _, _ = run_logq(APP / "logq.py", log, where, group_by, top)
        if code == 0 and got == expected(records, where, group_by, top):
            good += 1
        else:
            failures.append(where)
    return good / len(queries), failures


def injections(seed, log, count=INJECTIONS):
    """(calls, shapes): the fraction of each family's seeded payloads rejected with exit 2
    and no marker. Each payload runs in its own scratch directory as working directory and
    names its marker relative to it, so the payload text is the same on every pass (a random
    directory name in it could happen to contain a word a blacklist looks for)."""
    calls, shapes = gen.injection_payloads(seed, [MARKER] * count, [MARKER] * count)
    good = []
    for payload in calls + shapes:
        scratch = Path(scratch_dir())
        code, _, _, _ = run_logq(APP / "logq.py", log, payload, "service", 10, timeout=20,
                                 scratch=scratch, cwd=scratch)
        good.append(code == 2 and not os.path.lexists(scratch / MARKER))
    return sum(good[:count]) / count, sum(good[count:]) / count


def speedup(seed, workdir):
    """(speedup, message): the agent's logq against the shipped one, same data, same run,
    both run untrusted and timed in alternation, so a burst of load on the grading machine
    slows both sides alike. More rounds only while the candidate is under FULL_SPEEDUP (and
    not hopelessly slow); each side's best run counts, and every candidate run must give the
    shipped tool's output."""
    records = gen.records(seed + 99, PERF_RECORDS, users=PERF_USERS)
    log = workdir / "perf.jsonl"
    log.write_text(gen.to_jsonl(records))
    where = "status >= 200 and latency_ms > 5 or method == 'DELETE'"
    shipped = workdir / "baseline_logq.py"
    shutil.copyfile(HERE / "baseline_logq.py", shipped)
    base_best = best = math.inf
    for round_ in range(PERF_ROUNDS):
        _, want, base_time, base_scratch = run_logq(shipped, log, where, "user", 50, timeout=120)
        shutil.rmtree(base_scratch, ignore_errors=True)  # the answer must not be there for the candidate
        base_best = min(base_best, base_time)
        code, got, elapsed, _ = run_logq(APP / "logq.py", log, where, "user", 50, timeout=120)
        if code is None:
            return 0.0, f"did not finish in 120s on the timing input (baseline {base_best:.2f}s)"
        if code != 0 or got != want:
            return 0.0, "output differs from the shipped implementation on the timing input"
        best = min(best, elapsed)
        if best <= base_best / FULL_SPEEDUP or best > 2 * base_best:
            break  # fast enough, or hopeless: do not spend verifier time on repeats
    return base_best / best, f"best of {round_ + 1} round(s): baseline {base_best:.2f}s, candidate {best:.3f}s"


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    workdir = Path(input_dir())
    sample = gen.records(gen.SAMPLE_SEED, gen.SAMPLE_SIZE)
    sample_log = workdir / "sample.jsonl"
    sample_log.write_text(gen.to_jsonl(sample))
    sample_queries = [(q["where"], q["group_by"], q["top"]) for q in gen.SAMPLE_QUERIES]
    fraction, _ = semantics(sample, sample_log, sample_queries)
    card.check("sample_queries", fraction == 1.0, weight=0.5, visibility="public")
    scratch = Path(scratch_dir())
    marker = scratch / "pwned"
    code, _, _, _ = run_logq(APP / "logq.py", sample_log,
                             gen.SAMPLE_INJECTION.replace("/tmp/logq-pwned", str(marker)),
                             "service", 10, timeout=20, scratch=scratch)
    hardened = code == 2 and not os.path.lexists(marker)
    card.check("rejects_sample_injection", hardened, weight=1, visibility="public")

    records = gen.records(seed, 2000, users=300)
    log = workdir / "hidden.jsonl"
    log.write_text(gen.to_jsonl(records))
    # Rejecting is worth something only from a tool that still answers valid queries, and
    # answering only from one that is safe: a blacklist in front of eval, or a tool that
    # rejects everything, earns little.
    small = workdir / "small.jsonl"
    small.write_text(gen.to_jsonl(gen.records(seed + 1, 60)))
    calls, shapes = injections(seed, small)
    safety = (calls + shapes) / 2
    accepted, refused = semantics(records, log, gen.unusual_queries(seed))
    note = f"x {accepted:.2f} ({len(refused)} unusual valid queries refused or answered wrong)"
    card.add("injection_calls", calls * accepted, weight=3, message=f"{calls:.2f} rejected {note}")
    card.add("injection_shapes", shapes * accepted, weight=3, message=f"{shapes:.2f} rejected {note}")

    gate = f" (x {safety:.2f}, the fraction of hidden payloads rejected)"
    if not hardened:
        safety, gate = 0.0, " (scored 0: the sample injection is not rejected)"
    basic, failures = semantics(records, log, gen.basic_queries(seed))
    card.add("semantics_basic", basic * safety, weight=1,
             message=f"{len(failures)} of 20 differ{gate}")
    edge, failures = semantics(records, log, gen.edge_queries(seed))
    card.add("semantics_edge", edge * safety, weight=2,
             message=f"{len(failures)} of 20 differ{gate}")

    if safety > 0:
        ratio, message = speedup(seed, workdir)
    else:
        ratio, message = 0.0, "not scored: the tool is not safe"
    score = min(1.0, max(0.0, (ratio - ZERO_SPEEDUP) / (FULL_SPEEDUP - ZERO_SPEEDUP)))
    card.add("speedup", score * safety, weight=4, message=f"x{ratio:.1f}: {message}{gate}; seed {seed}")
    card.write(SCORECARD)


if __name__ == "__main__":
    main()
