"""Start-up time: ``import lhtb`` and ``lhtb --help`` against ``python -c pass``, in one run.

Run: python3 benchmarks/import_time.py [--repeats N]

Each command runs ``--repeats`` times in a fresh interpreter, interleaved so that
machine load hits all three alike. The median wall time is compared with the
targets (``import lhtb`` <= 0.3 s, ``lhtb --help`` <= 0.5 s); the time over the
bare interpreter is what lhtb itself costs. It also lists the heavy modules that
``import lhtb`` must not load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
COMMANDS = {
    "python -c pass": "pass",
    "import lhtb": "import lhtb",
    "lhtb --help": (
        "import sys; from lhtb.cli import main; sys.argv = ['lhtb', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    ),
}
TARGETS = {"import lhtb": 0.3, "lhtb --help": 0.5}
HEAVY = ("openai", "ray", "rich", "docker", "structlog")


def _env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{path}" if path else str(SRC)}


def _once(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=_env(), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _loaded_heavy() -> list[str]:
    code = f"import json, sys, lhtb; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=_env(), check=True, capture_output=True, text=True
    )
    return list(json.loads(out.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    for code in COMMANDS.values():  # warm the file cache
        _once(code)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeats):
        for name, code in COMMANDS.items():
            times[name].append(_once(code))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':<16} {'median s':>9} {'min s':>7} {'over python':>12}  target")
    failed = False
    for name, samples in times.items():
        median = statistics.median(samples)
        target = TARGETS.get(name)
        verdict = ""
        if target is not None:
            ok = median <= target
            failed |= not ok
            verdict = f"<= {target:.1f} s {'met' if ok else 'MISSED'}"
        print(f"{name:<16} {median:>9.3f} {min(samples):>7.3f} {median - base:>+12.3f}  {verdict}")
    heavy = _loaded_heavy()
    print(f"heavy modules loaded by `import lhtb`: {', '.join(heavy) or 'none'}")
    if failed or heavy:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
