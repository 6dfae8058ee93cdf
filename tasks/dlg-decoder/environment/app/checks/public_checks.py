"""Public checks: convert the bundled samples and compare with the vendor's CSV."""

import subprocess
import sys
import tempfile
from pathlib import Path

APP = Path(__file__).resolve().parent.parent
SAMPLES = APP / "samples"


def convert(name, tmp):
    out = Path(tmp) / f"{name}.csv"
    proc = subprocess.run([sys.executable, str(APP / "dlg2csv.py"), str(SAMPLES / f"{name}.dlg"),
                           "-o", str(out)], capture_output=True, text=True, timeout=60, cwd=str(APP))
    if proc.returncode != 0 or not out.exists():
        return f"dlg2csv.py failed: {proc.stderr.strip()[-500:]}"
    want = (SAMPLES / f"{name}.csv").read_text().splitlines()
    got = out.read_text().splitlines()
    if got == want:
        return None
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return f"line {i + 1}: got {a!r}, want {b!r}"
    return f"got {len(got)} lines, want {len(want)}"


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for check, names in (("v1_sample", ["v1_basic"]), ("v2_samples", ["v2_delta", "v2_packed"])):
            problems = [f"{n}: {p}" for n in names if (p := convert(n, tmp))]
            print(("FAIL " if problems else "PASS ") + check + ("" if not problems else ": " + "; ".join(problems)))
            failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
