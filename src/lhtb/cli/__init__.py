"""The ``lhtb`` command: one module per subcommand group, wired here."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="lhtb")
def main() -> None:
    """lhtb: run long-horizon terminal benchmarks with hidden, isolated verifiers."""
