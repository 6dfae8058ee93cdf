"""``lhtb images``: base images for machines without a registry."""

from __future__ import annotations

from pathlib import Path

import click

from lhtb.errors import LhtbError
from lhtb.images._bootstrap import BaseImageAction, bootstrap_base_images

__all__ = ["images"]


@click.group()
def images() -> None:
    """Manage the Docker base images tasks are built from."""


@images.command()
@click.argument(
    "tasks_dirs",
    nargs=-1,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
def bootstrap(tasks_dirs: tuple[Path, ...]) -> None:
    """Make the base images of the tasks in TASKS_DIR... (default: tasks/) available.

    Missing images (FROM bases and COPY --from sources) are pulled when a registry
    answers; otherwise Debian bases are built with debootstrap and `docker import`,
    python:3.11/3.13[-slim] from Debian's Python, ubuntu:* when an Ubuntu archive answers.
    For any other image the error says exactly how to load it. Present images are
    left alone.
    """
    targets = list(tasks_dirs) or [Path("tasks")]
    try:
        report = bootstrap_base_images(targets)
    except LhtbError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"scanned {len(report.dockerfiles)} Dockerfile(s)")
    for result in report.results:
        detail = f" (from {result.source})" if result.source else ""
        verb = "already present" if result.action is BaseImageAction.PRESENT else result.action
        click.echo(f"  {result.image}: {verb}{detail}")
    if not report.results:
        click.echo("  no base images to make")
