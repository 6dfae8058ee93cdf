"""Public checks: the port lists and extracts the bundled samples exactly as pak did.

    python3 /app/checks/public_checks.py

Prints PASS/FAIL per check. These are smoke tests only: the acceptance suite
compares the port with the legacy binary on far more (and nastier) inputs.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
SAMPLES = APP / "samples"


def port(*args, cwd):
    return subprocess.run([sys.executable, str(APP / "pak.py"), *args], cwd=cwd,
                          capture_output=True, timeout=120)


def tree(root):
    found = {}
    for base, _, names in os.walk(root):
        for name in names:
            path = Path(base) / name
            found[str(path.relative_to(root))] = (path.read_bytes(), path.stat().st_mode & 0o777)
    return found


def check_listing(archive):
    proc = port("l", archive.name, cwd=SAMPLES)
    want = archive.with_suffix(".list").read_bytes()
    if proc.returncode != 0 or proc.stderr:
        return "exit %d, stderr %r" % (proc.returncode, proc.stderr[-300:])
    if proc.stdout != want:
        got, exp = proc.stdout.decode("latin-1").splitlines(), want.decode("latin-1").splitlines()
        for number, (a, b) in enumerate(zip(got, exp), 1):
            if a != b:
                return "line %d: got %r, want %r" % (number, a, b)
        return "got %d lines, want %d" % (len(got), len(exp))
    return None


def check_extract(archive, tmp):
    dest = Path(tmp) / archive.stem
    proc = port("x", archive.name, str(dest), cwd=SAMPLES)
    if proc.returncode != 0 or proc.stderr:
        return "exit %d, stderr %r" % (proc.returncode, proc.stderr[-300:])
    if proc.stdout != archive.with_suffix(".x").read_bytes():
        return "stdout %r" % proc.stdout[-200:]
    got, want = tree(dest), tree(SAMPLES / (archive.stem + ".d"))
    for name in sorted(set(got) | set(want)):
        if got.get(name) != want.get(name):
            return "%s differs" % name
    return None


def main():
    archives = sorted(SAMPLES.glob("*.pak"))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for check, run in (("public_listing", check_listing),
                           ("public_extract", lambda a: check_extract(a, tmp))):
            problems = ["%s: %s" % (a.name, p) for a in archives if (p := run(a))]
            print(("FAIL " if problems else "PASS ") + check + ("" if not problems else ": " + "; ".join(problems)))
            failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
