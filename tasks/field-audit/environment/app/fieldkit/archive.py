"""Walk an archive: one report entry per case directory, whatever state the case is in."""

import sys
import time
from pathlib import Path

from .diagnostics import CaseLog, summarize
from .report import case_report
from .schema import empty_entry, entry_problems


def case_dirs(root, only=None):
    """The case directories of an archive, by name (hidden directories skipped)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such archive directory")
    dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if only:
        dirs = [p for p in dirs if p.name in only]
    return dirs


def inspect_archive(root, only=None, verbose=False, progress=False):
    """``(cases, diagnostics)`` for every case directory of ``root``."""
    cases, logs = {}, []
    t0 = time.perf_counter()
    dirs = case_dirs(root, only)
    for n, case_dir in enumerate(dirs, 1):
        log = CaseLog(case_dir.name, verbose=verbose)
        try:
            entry = case_report(case_dir, log)
        except Exception as exc:
            log.errors["case"] = f"{type(exc).__name__}: {exc}"
            print(f"{case_dir.name}: failed: {exc!r}", file=sys.stderr)
            entry = empty_entry()
        for text in entry_problems(entry):
            log.warn(f"report: {text}")
        cases[case_dir.name] = entry
        logs.append(log)
        if progress:
            print(f"[{n}/{len(dirs)}] {case_dir.name} {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    diagnostics = {"summary": summarize(logs), "cases": {log.name: log.as_dict() for log in logs}}
    return cases, diagnostics
