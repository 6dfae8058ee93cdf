"""The ``lhtb`` command: one module per subcommand, wired here."""

from __future__ import annotations

import logging
import sys

import click

from lhtb.cli.images import images
from lhtb.cli.results import check, leaderboard, report
from lhtb.cli.run import cleanup, run
from lhtb.cli.validate import validate
from lhtb.cli.verify import verify


@click.group()
@click.version_option(package_name="lhtb")
@click.option("-v", "--verbose", count=True, help="Show library logs (-v info, -vv debug).")
def main(verbose: int) -> None:
    """lhtb: run long-horizon terminal benchmarks with hidden, isolated verifiers."""
    import structlog  # noqa: PLC0415 - heavy; not needed for --help

    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


main.add_command(validate)
main.add_command(run)
main.add_command(cleanup)
main.add_command(images)
main.add_command(leaderboard)
main.add_command(report)
main.add_command(check)
main.add_command(verify)
