"""Task healthchecks with Harbor's semantics, for any backend that can exec.

Run the command until it first succeeds. Failures during ``start_period_sec``
do not count (checks then repeat every ``start_interval_sec``); after it,
``retries`` consecutive failures (checks every ``interval_sec``) are an error.
Each check is bounded by ``timeout_sec``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio

from lhtb._util.log import get_logger
from lhtb.errors import SetupError
from lhtb.sandbox.base import ExecResult
from lhtb.task._model import Healthcheck

__all__ = ["wait_healthy"]

log = get_logger(__name__)

Check = Callable[[str, float], Awaitable[ExecResult]]
"""Runs a shell command with a timeout and returns its result."""


async def wait_healthy(check: Check, healthcheck: Healthcheck, *, where: str) -> int:
    """Return the number of checks it took to succeed.

    Raises:
        SetupError: ``retries`` consecutive checks failed after the start period.
    """
    started = time.monotonic()
    failures = 0
    attempts = 0
    while True:
        attempts += 1
        result = await check(healthcheck.command, healthcheck.timeout_sec)
        if result.ok:
            log.debug("healthcheck_passed", where=where, attempts=attempts)
            return attempts
        in_start_period = time.monotonic() - started < healthcheck.start_period_sec
        if not in_start_period:
            failures += 1
            if failures >= healthcheck.retries:
                tail = (result.stderr_text or result.stdout_text).strip()[-500:]
                reason = "timed out" if result.timed_out else f"exit code {result.exit_code}"
                raise SetupError(
                    f"the environment never became healthy: healthcheck "
                    f"{healthcheck.command!r} failed {failures} time(s) in a row "
                    f"(last: {reason}{': ' + tail if tail else ''})",
                    where=where,
                    fix="Check the service the healthcheck probes, or relax "
                    "[environment.healthcheck] retries/start_period_sec in task.toml",
                    detail=tail,
                )
        await anyio.sleep(
            healthcheck.start_interval_sec if in_start_period else healthcheck.interval_sec
        )
