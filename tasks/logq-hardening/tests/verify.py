"""Hidden checks for logq-hardening. Writes /logs/verifier/scorecard.json."""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import baseline_logq as baseline  # noqa: E402
import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SCORECARD = os.environ.get("LHTB_SCORECARD", "/logs/verifier/scorecard.json")
FULL_SPEEDUP = 5.0   # full credit at >= 5x the shipped implementation
ZERO_SPEEDUP = 1.5   # nothing at <= 1.5x
PERF_RECORDS = 12000
PERF_USERS = 1800


def run_logq(program, log, where, group_by, top, out, timeout=60):
    args = [sys.executable, str(program), str(log), "--group-by", group_by, "--top", str(top), "-o", str(out)]
    if where is not None:
        args += ["--where", where]
    if out.exists():
        out.unlink()
    start = time.perf_counter()
    try:
        proc = subprocess.run(args, capture_output=True, timeout=timeout, cwd=str(APP))
    except subprocess.TimeoutExpired:
        return None, None, timeout
    elapsed = time.perf_counter() - start
    result = None
    if proc.returncode == 0 and out.exists():
        try:
            result = json.loads(out.read_text())
        except ValueError:
            result = None
    return proc.returncode, result, elapsed


def expected(records, where, group_by, top):
    kept = records if where is None else [r for r in records if baseline.matches(where, r)]
    return {"matched": len(kept), "groups": baseline.summarise(kept, group_by, top)}


def semantics(records, log, queries, workdir):
    good, failures = 0, []
    for where, group_by, top in queries:
        code, got, _ = run_logq(APP / "logq.py", log, where, group_by, top, workdir / "q.json")
        if code == 0 and got == expected(records, where, group_by, top):
            good += 1
        else:
            failures.append(where)
    return good / len(queries), failures


def injections(payloads, log, workdir, tag):
    good = 0
    for number, template in enumerate(payloads):
        marker = workdir / f"mark-{tag}-{number}"
        payload = template.replace("MARKER", str(marker))
        code, _, _ = run_logq(APP / "logq.py", log, payload, "service", 10, workdir / "i.json", timeout=20)
        if code == 2 and not marker.exists():
            good += 1
    return good / len(payloads)


def speedup(seed, workdir):
    """(speedup, message): the agent's logq against the shipped one, same data, same run."""
    records = gen.records(seed + 99, PERF_RECORDS, users=PERF_USERS)
    log = workdir / "perf.jsonl"
    log.write_text(gen.to_jsonl(records))
    where = "status >= 200 and latency_ms > 5 or method == 'DELETE'"
    _, want, base_time = run_logq(HERE / "baseline_logq.py", log, where, "user", 50, workdir / "b.json", timeout=120)
    best = None
    for _ in range(3):
        code, got, elapsed = run_logq(APP / "logq.py", log, where, "user", 50, workdir / "a.json", timeout=120)
        if code != 0 or got != want:
            return 0.0, "output differs from the shipped implementation on the timing input"
        best = elapsed if best is None else min(best, elapsed)
        if best > base_time / 2 or best < base_time / (2 * FULL_SPEEDUP):
            break  # clearly too slow, or clearly fast enough: do not spend verifier time on repeats
    return base_time / best, f"baseline {base_time:.2f}s, candidate best {best:.3f}s"


def main():
    seed = int(os.environ.get("LHTB_SEED") or int.from_bytes(os.urandom(4), "big"))
    card = Scorecard()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        sample = gen.records(gen.SAMPLE_SEED, gen.SAMPLE_SIZE)
        sample_log = workdir / "sample.jsonl"
        sample_log.write_text(gen.to_jsonl(sample))
        sample_queries = [(q["where"], q["group_by"], q["top"]) for q in gen.SAMPLE_QUERIES]
        fraction, _ = semantics(sample, sample_log, sample_queries, workdir)
        card.check("sample_queries", fraction == 1.0, weight=1, visibility="public")
        marker = workdir / "pwned"
        code, _, _ = run_logq(APP / "logq.py", sample_log,
                              gen.SAMPLE_INJECTION.replace("/tmp/logq-pwned", str(marker)),
                              "service", 10, workdir / "i.json", timeout=20)
        hardened = code == 2 and not marker.exists()
        card.check("rejects_sample_injection", hardened, weight=1, visibility="public")
        gate = "" if hardened else " (scored 0: the sample injection is not rejected)"

        records = gen.records(seed, 2000, users=300)
        log = workdir / "hidden.jsonl"
        log.write_text(gen.to_jsonl(records))
        basic, failures = semantics(records, log, gen.basic_queries(seed), workdir)
        card.add("semantics_basic", basic if hardened else 0.0, weight=1,
                 message=f"{len(failures)} differ{gate}")
        edge, failures = semantics(records, log, gen.edge_queries(seed), workdir)
        card.add("semantics_edge", edge if hardened else 0.0, weight=2,
                 message=f"{len(failures)} differ{gate}")

        small = workdir / "small.jsonl"
        small.write_text(gen.to_jsonl(gen.records(seed + 1, 60)))
        calls, shapes = gen.injection_payloads("MARKER")
        card.add("injection_calls", injections(calls, small, workdir, "c"), weight=3)
        card.add("injection_shapes", injections(shapes, small, workdir, "s"), weight=3)

        if hardened:
            ratio, message = speedup(seed, workdir)
        else:
            ratio, message = 0.0, "not scored: the sample injection is not rejected"
        score = min(1.0, max(0.0, (ratio - ZERO_SPEEDUP) / (FULL_SPEEDUP - ZERO_SPEEDUP)))
        card.add("speedup", score, weight=4, message=f"x{ratio:.1f}: {message}; seed {seed}")
    card.write(SCORECARD)


if __name__ == "__main__":
    main()
