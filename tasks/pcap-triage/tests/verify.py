"""Hidden checks for pcap-triage. Writes /logs/verifier/scorecard.json.

The agent's C sources are copied out of /app/src and compiled by gcc running as the
untrusted uid (so neither the compiler nor anything the sources include can see /tests)
with fixed flags: -O2 for the outputs and the race, and -fsanitize=address,undefined for
the hostile captures. The reference implementation (tests/reference, the same code as
the solution) is compiled by the tests, as root, into a private (0700) directory; for
its timed runs a copy is exposed in a fresh directory that is removed before the agent's
program runs again, so the agent's program never finds a reference to run. Every
capture is generated from the episode seed into an input directory; every run of the
agent's program gets a fresh scratch directory."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate as gen  # noqa: E402
from lhtb_scorecard import Scorecard, input_dir, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SCORECARD = os.environ.get("LHTB_SCORECARD", "/logs/verifier/scorecard.json")
OPT_FLAGS = ["-std=gnu11", "-O2", "-w"]
SAN_FLAGS = [
    "-std=gnu11",
    "-O1",
    "-g",
    "-w",
    "-fno-omit-frame-pointer",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
]
# Set in the environment, these override any defaults the program compiles in.
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:exitcode=86:log_path=stderr:"
    "abort_on_error=0:allocator_may_return_null=0",
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=86:log_path=stderr:print_stacktrace=1",
}
HOOK = re.compile(r" [TtWwi] (__(asan|ubsan|lsan|sanitizer)_\w+)$")
SAN_MARKERS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: UndefinedBehaviorSanitizer")
FULL_RATIO = 4.0  # full credit within 4x the reference's time (wall clock on a loaded
ZERO_RATIO = 12.0  # machine: identical binaries measured up to 1.6x apart); nothing at 12x
RACE_RUNS = 3


def sources(root):
    return sorted(
        p
        for p in Path(root).iterdir()
        if p.suffix in (".c", ".h") and p.is_file() and not p.is_symlink()
    )


def build_reference(workdir):
    out = Path(workdir) / "pcapsum-ref"
    files = [str(p) for p in sources(HERE / "reference") if p.suffix == ".c"]
    subprocess.run(["gcc", *OPT_FLAGS, "-o", str(out), *files, "-lm"], check=True)
    return out


def build_candidate():
    """(optimised binary, sanitized binary, message): either binary is None if it failed."""
    src = APP / "src"
    if not src.is_dir():
        return None, None, "/app/src is missing"
    build = Path(scratch_dir())
    for path in sources(src):
        shutil.copyfile(path, build / path.name)
    build.chmod(0o777)
    for path in build.iterdir():
        path.chmod(0o666)
    files = [p.name for p in sources(build) if p.suffix == ".c"]
    if not files:
        return None, None, "no C sources in /app/src"
    results, notes = [], []
    for name, flags in (("pcapsum", OPT_FLAGS), ("pcapsum-san", SAN_FLAGS)):
        proc = run_untrusted(
            ["gcc", *flags, "-o", name, *files, "-lm"], cwd=str(build), timeout=300, text=True
        )
        ok = proc.returncode == 0 and (build / name).is_file() and not (build / name).is_symlink()
        results.append(build / name if ok else None)
        if not ok:
            notes.append(f"{name}: gcc exit {proc.returncode}: {(proc.stderr or '')[-400:]}")
    if results[1] is not None:
        hooks = sanitizer_hooks(results[1])
        if hooks:
            results[1] = None
            notes.append("the sanitized build defines sanitizer hooks: " + ", ".join(hooks[:4]))
    # from here on the binaries cannot be changed by the programs they run
    for path in build.iterdir():
        os.chown(path, 0, 0, follow_symlinks=False)
        os.chmod(path, 0o755, follow_symlinks=False)  # noqa: PTH101 - never follow a link
    build.chmod(0o755)
    return results[0], results[1], "; ".join(notes)


def sanitizer_hooks(binary):
    """Sanitizer runtime hooks (default options, error callbacks) the program defines
    itself: a sanitized build must report what it finds, not silence it."""
    proc = subprocess.run(
        ["nm", "--defined-only", str(binary)], capture_output=True, text=True, check=False
    )
    return [m.group(1) for m in map(HOOK.search, proc.stdout.splitlines()) if m]


def reference_output(ref, capture, top):
    proc = subprocess.run(
        [str(ref), "-n", str(top), str(capture)], capture_output=True, timeout=120, check=False
    )
    return proc.returncode, proc.stdout


def run_candidate(binary, capture, top, *, sanitized=False, timeout=None):
    """(returncode or None on timeout, stdout bytes, sanitizer report or '', seconds)."""
    env = SAN_ENV if sanitized else None
    timeout = timeout or (10 if sanitized else 5)
    proc = run_untrusted([str(binary), "-n", str(top), str(capture)], timeout=timeout, env=env)
    err = (proc.stderr or b"").decode("utf-8", "replace")
    report = next((line for line in err.splitlines() if any(m in line for m in SAN_MARKERS)), "")
    if proc.timed_out:
        return None, b"", report, proc.elapsed
    return proc.returncode, proc.stdout or b"", report, proc.elapsed


def replay(cases, ref, binary, inputs, *, sanitized=False):
    """(fraction of cases whose output and exit status equal the reference's, failures)."""
    if binary is None:
        return 0.0, [f"{len(cases)} cases not run: the program was not built"]
    good, failures = 0, []
    for name, data, top in cases:
        path = Path(inputs) / f"{name}.pcap"
        path.write_bytes(data)
        want_rc, want = reference_output(ref, path, top)
        rc, got, report, _ = run_candidate(binary, path, top, sanitized=sanitized)
        if rc is None:
            failures.append(f"{name}: timed out")
        elif report:
            failures.append(f"{name}: sanitizer: {report[:160]}")
        elif rc != want_rc or got != want:
            failures.append(f"{name}: output differs" if rc == want_rc else f"{name}: exit {rc}")
        else:
            good += 1
    return good / len(cases), failures


def race(seed, ref, binary, inputs):
    """(ratio of the candidate's best time to the reference's best, message); the ratio is
    None when the output differs or the candidate did not finish. Each pair of runs uses
    its own variant of the large capture, so no run can reuse an earlier answer."""
    if binary is None:
        return None, "not built"
    base = gen.perf_capture(seed)
    ref_best = cand_best = None
    for k in range(RACE_RUNS):
        path = Path(inputs) / f"large-{k}.pcap"
        path.write_bytes(base + gen.perf_tail(seed, k))
        want_rc, want = reference_output(ref, path, 25)

        def timed_reference(path=path):
            # the untrusted uid may run the reference only while it is timed: the copy it
            # can execute is gone before the candidate runs (which could otherwise exec it)
            exposed = Path(input_dir("lhtb-race-"))
            copy = exposed / "bin"
            shutil.copy2(ref, copy)
            try:
                proc = run_untrusted([str(copy), "-n", "25", str(path)], timeout=300)
            finally:
                shutil.rmtree(exposed, ignore_errors=True)
            shutil.rmtree(proc.scratch, ignore_errors=True)
            return proc.elapsed

        # alternate which side runs first, so neither always meets a warm or a cold cache
        ref_time = timed_reference() if k % 2 == 0 else None
        limit = max(15.0, 25 * (ref_time or ref_best))
        rc, got, _, elapsed = run_candidate(binary, path, 25, timeout=limit)
        if ref_time is None:
            ref_time = timed_reference()
        ref_best = ref_time if ref_best is None else min(ref_best, ref_time)
        path.unlink()
        if rc is None:
            return None, f"did not finish in {limit:.0f}s (reference {ref_best:.2f}s)"
        if rc != want_rc or got != want:
            return None, "output differs from the reference on the large capture"
        cand_best = elapsed if cand_best is None else min(cand_best, elapsed)
        if cand_best > ZERO_RATIO * 2 * ref_best:
            break  # hopeless: do not spend verifier time on repeats
    return cand_best / ref_best, f"reference {ref_best:.3f}s, candidate {cand_best:.3f}s"


def main():
    seed = kit_seed()
    card = Scorecard()
    readable(APP)
    inputs = input_dir()
    ref = build_reference(tempfile.mkdtemp(prefix="pcapsum-ref-"))  # root-only, mode 0700
    opt, san, note = build_candidate()
    gate = f" [{note}]" if note else ""

    sample, _ = replay([("sample", gen.sample_capture(), 10)], ref, opt, inputs)
    card.check(
        "sample_report",
        sample == 1.0,
        weight=1,
        visibility="public",
        message=f"bundled sample capture{gate}",
    )
    hostile_sample, fails = replay(
        [("hostile-sample", gen.sample_hostile(), 10)], ref, san, inputs, sanitized=True
    )
    card.check(
        "sample_hostile",
        hostile_sample == 1.0,
        weight=1,
        visibility="public",
        message="; ".join(fails) or "bundled hostile capture, sanitized build",
    )

    def category(name, cases, weight, sanitized=False):
        score, fails = replay(cases, ref, san if sanitized else opt, inputs, sanitized=sanitized)
        card.add(
            name,
            score,
            weight=weight,
            message=f"{round(score * len(cases))}/{len(cases)} match; " + "; ".join(fails[:4]),
        )
        return score

    category("traffic", gen.traffic_cases(seed), 2)
    category("capture_format", gen.format_cases(seed), 1.5)
    category("encapsulation", gen.encapsulation_cases(seed), 1.5)
    category("dns_names", gen.dns_cases(seed), 1.5)
    category("http_hosts", gen.http_cases(seed), 1)
    safety = category("hostile_inputs", gen.hostile_cases(seed), 3, sanitized=True)

    if safety > 0:
        ratio, message = race(seed, ref, opt, inputs)
    else:
        ratio, message = None, "not raced: no hostile capture was handled safely"
    speed = 0.0
    if ratio is not None:
        speed = min(1.0, max(0.0, (ZERO_RATIO - ratio) / (ZERO_RATIO - FULL_RATIO)))
    shown = "-" if ratio is None else f"{ratio:.2f}x the reference's time"
    card.add(
        "throughput",
        speed * safety,
        weight=4,
        message=f"{shown}: {message} (x {safety:.2f}, the hostile fraction); seed {seed}",
    )
    card.write(SCORECARD)


if __name__ == "__main__":
    main()
