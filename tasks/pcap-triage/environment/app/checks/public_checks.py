"""Public checks for pcapsum: build /app/src the way the graders do, then compare the
reports for the two bundled captures (the hostile one under AddressSanitizer and
UndefinedBehaviorSanitizer). Exit status 0 when both pass."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
OPT = ["-std=gnu11", "-O2", "-w"]
SAN = [
    "-std=gnu11",
    "-O1",
    "-g",
    "-w",
    "-fno-omit-frame-pointer",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
]
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:exitcode=86:log_path=stderr",
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=86:log_path=stderr:print_stacktrace=1",
}
MARKERS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: UndefinedBehaviorSanitizer")


def build(out, flags):
    files = sorted(str(p) for p in (APP / "src").glob("*.c"))
    proc = subprocess.run(
        ["gcc", *flags, "-o", str(out), *files, "-lm"], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        print(proc.stderr[-2000:])
    return proc.returncode == 0


def check(name, binary, capture, expected, env=None):
    run_env = dict(os.environ, **(env or {}))
    proc = subprocess.run(
        [str(binary), str(capture)], capture_output=True, timeout=60, env=run_env, check=False
    )
    err = proc.stderr.decode("utf-8", "replace")
    report = [line for line in err.splitlines() if any(m in line for m in MARKERS)]
    ok = proc.returncode == 0 and not report and proc.stdout == expected.read_bytes()
    if report:
        why = report[0]
    else:
        why = f"exit {proc.returncode}" if proc.returncode else "report differs"
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {why}"))
    return ok


def main():
    data = APP / "data"
    with tempfile.TemporaryDirectory() as tmp:
        opt, san = Path(tmp) / "pcapsum", Path(tmp) / "pcapsum-san"
        if not (build(opt, OPT) and build(san, SAN)):
            print("FAIL build")
            return 1
        results = [
            check("sample_report", opt, data / "sample.pcap", data / "sample.report"),
            check(
                "sample_hostile",
                san,
                data / "hostile-sample.pcap",
                data / "hostile-sample.report",
                SAN_ENV,
            ),
        ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
