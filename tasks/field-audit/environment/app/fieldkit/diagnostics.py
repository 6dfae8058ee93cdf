"""Per-case notes on what each stage saw, how long it took and what went wrong."""

import sys
import time
import traceback


class CaseLog:
    """Collects stage timings, warnings and errors for one case."""

    def __init__(self, name, verbose=False):
        self.name = name
        self.verbose = verbose
        self.stages = {}
        self.warnings = []
        self.errors = {}

    def stage(self, name, fn, default):
        """Run one stage; a failing stage is recorded and yields ``default``."""
        t0 = time.perf_counter()
        try:
            return fn()
        except Exception as exc:  # one unreadable file must not sink the rest of the case
            self.errors[name] = f"{type(exc).__name__}: {exc}"
            print(f"{self.name}: {name}: {exc!r}", file=sys.stderr)
            if self.verbose:
                traceback.print_exc()
            return default
        finally:
            self.stages[name] = round(time.perf_counter() - t0, 3)

    def warn(self, text):
        self.warnings.append(text)
        if self.verbose:
            print(f"{self.name}: warning: {text}", file=sys.stderr)

    def as_dict(self):
        return {"seconds": self.stages, "warnings": self.warnings, "errors": self.errors}


def summarize(logs):
    """Archive-wide totals: cases, failures per stage, slowest stages."""
    failed, total = {}, {}
    for log in logs:
        for stage in log.errors:
            failed[stage] = failed.get(stage, 0) + 1
        for stage, sec in log.stages.items():
            total[stage] = round(total.get(stage, 0.0) + sec, 3)
    return {"cases": len(logs), "failed_stages": failed, "seconds_by_stage": total}
