"""The ``lhtb`` command: one module per subcommand, wired here."""

from __future__ import annotations

import click

from lhtb.cli.images import images
from lhtb.cli.run import cleanup, run
from lhtb.cli.validate import validate


@click.group()
@click.version_option(package_name="lhtb")
def main() -> None:
    """lhtb: run long-horizon terminal benchmarks with hidden, isolated verifiers."""


main.add_command(validate)
main.add_command(run)
main.add_command(cleanup)
main.add_command(images)
