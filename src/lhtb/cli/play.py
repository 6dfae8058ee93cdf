"""``lhtb play``: work a task yourself, timed and verified like an agent."""

from __future__ import annotations

import functools
import getpass
from pathlib import Path

import anyio
import click

from lhtb.cli.session import episode_args, episode_options, finished_line
from lhtb.errors import LhtbError
from lhtb.session.core import Session


@click.command()
@episode_options
@click.option(
    "--name",
    default=None,
    help="Your name; the episode is recorded as agent human:NAME (default: $USER).",
)
def play(
    task_path: Path,
    budget: float | None,
    backend: str,
    seed: int | None,
    feedback: str,
    checkpoint_every: float | None,
    out_dir: Path | None,
    name: str | None,
) -> None:
    """Work TASK yourself: a shell in its sandbox, timed and verified like an agent.

    `lhtb submit` in that shell (or `lhtb submit SESSION` from another terminal)
    has your work verified; the terminal's title shows the time left; leaving the
    shell (exit, Ctrl-D, Ctrl-]) is a stop.
    """
    from lhtb.session.play import play_session  # noqa: PLC0415 - the episode machinery

    person = name or _user()

    def ready(path: Path, session: Session) -> None:
        click.echo(f"task {session.task_name}, as human:{person}; starting the sandbox...")
        click.echo(f"session: {path}  (from another terminal: lhtb submit {path})")

    try:
        task, args = episode_args(
            task_path, budget, backend, seed, feedback, checkpoint_every, out_dir
        )
        run = functools.partial(
            play_session, task, person=person, show=click.echo, on_ready=ready, **args
        )
        episode = anyio.run(run)
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(finished_line(episode, args["output_dir"]))


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "anonymous"
