"""``lhtb serve``, ``lhtb exec``, ``lhtb submit``: an episode for an agent outside lhtb."""

from __future__ import annotations

import functools
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import click

from lhtb.episode._record import Episode, FeedbackMode
from lhtb.errors import LhtbError
from lhtb.sandbox.registry import available_backends
from lhtb.session.client import SessionClient, resolve_session, verdict_text
from lhtb.session.core import Session
from lhtb.task._loader import load_task
from lhtb.task._model import Task
from lhtb.verify._seeds import MAX_SEED

F = TypeVar("F", bound=Callable[..., Any])


def episode_options(function: F) -> F:
    """The options every served episode takes (as ``lhtb run``'s)."""
    options = [
        click.argument("task_path", metavar="TASK", type=click.Path(exists=True, path_type=Path)),
        click.option(
            "--budget",
            type=click.FloatRange(min=0, min_open=True),
            default=None,
            help="Agent budget in seconds (default: the task's [agent].timeout_sec).",
        ),
        click.option(
            "--backend",
            type=click.Choice(["auto", *available_backends()]),
            default="auto",
            show_default=True,
            help="Sandbox backend (auto: docker when its daemon answers, else local).",
        ),
        click.option(
            "--seed",
            type=click.IntRange(min=0, max=MAX_SEED),
            default=None,
            help="The grading seed every verifier pass gets (default: random, recorded).",
        ),
        click.option(
            "--feedback",
            type=click.Choice([m.value for m in FeedbackMode]),
            default=FeedbackMode.BINARY.value,
            show_default=True,
        ),
        click.option(
            "--checkpoint-every",
            "checkpoint_every",
            type=click.FloatRange(min=0, min_open=True),
            default=None,
            metavar="SEC",
            help="Grade the agent's state in secret every SEC seconds of its budget while it "
            "works; the reward curve goes into the record "
            "(default: the task's [verifier].checkpoint_interval_sec, else never).",
        ),
        click.option(
            "--out",
            "out_dir",
            type=click.Path(path_type=Path),
            default=None,
            help="Episode directory (default: runs/<task>-<id>).",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def episode_args(
    task_path: Path,
    budget: float | None,
    backend: str,
    seed: int | None,
    feedback: str,
    checkpoint_every: float | None,
    out_dir: Path | None,
) -> tuple[Task, dict[str, Any]]:
    """The task and ``run_episode`` arguments the :func:`episode_options` give."""
    task = load_task(task_path)
    out = out_dir or Path("runs") / f"{task.name.replace('/', '__')}-{uuid.uuid4().hex[:8]}"
    args = {
        "budget": budget,
        "backend": backend,
        "seed": seed,
        "feedback": feedback,
        "checkpoint_interval_sec": checkpoint_every,
        "output_dir": out,
        "progress": "none",
    }
    return task, args


def finished_line(episode: Episode, out: Path) -> str:
    """How the episode ended, and where its record is."""
    reward = "no reward" if episode.reward is None else f"reward {episode.reward:g}"
    return f"episode {episode.outcome} ({reward}); record: {out / 'episode.json'}"


@click.command()
@episode_options
@click.option("--name", default="external", show_default=True, help="The agent's name.")
@click.option(
    "--socket",
    "socket_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Socket path (default: a new private directory under the temp dir).",
)
def serve(
    task_path: Path,
    budget: float | None,
    backend: str,
    seed: int | None,
    feedback: str,
    checkpoint_every: float | None,
    out_dir: Path | None,
    name: str,
    socket_path: Path | None,
) -> None:
    """Run one episode of TASK for an agent outside lhtb, served on a Unix socket.

    The socket speaks JSON lines (docs/external-agents.md): hello, status,
    exec, read_file, write_file, submit, events. Prints the socket path, then
    the outcome when the episode ends.
    """
    from lhtb.session.server import serve_session  # noqa: PLC0415 - the episode machinery

    def ready(path: Path, session: Session) -> None:
        click.echo(f"session: {path}")
        click.echo(f"task: {task.name}; the record goes to {args['output_dir']}")
        sys.stdout.flush()

    try:
        task, args = episode_args(
            task_path, budget, backend, seed, feedback, checkpoint_every, out_dir
        )
        run = functools.partial(
            serve_session, task, agent_name=name, socket_path=socket_path, on_ready=ready, **args
        )
        episode = anyio.run(run)
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(finished_line(episode, args["output_dir"]))


@click.command("exec", context_settings={"ignore_unknown_options": True})
@click.argument("session")
@click.argument("command", nargs=-1, required=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None)
def exec_(session: str, command: tuple[str, ...], timeout: float | None) -> None:
    """Run COMMAND in the sandbox of the session at SESSION (its socket path).

    One argument is a shell command (`lhtb exec S -- 'ls > x'`); several are an
    argv. Prints its output and exits with its exit code.
    """
    cmd: str | list[str] = command[0] if len(command) == 1 else list(command)
    extra = {} if timeout is None else {"timeout": timeout}
    try:
        with SessionClient(resolve_session(session)) as client:
            result = client.request("exec", cmd=cmd, **extra)
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    sys.stdout.write(result["stdout"])
    sys.stderr.write(result["stderr"])
    if result["timed_out"]:
        click.echo("lhtb: the command timed out", err=True)
    sys.exit(result["exit_code"] if 0 <= result["exit_code"] < 256 else 1)


@click.command()
@click.argument("session", required=False)
def submit(session: str | None) -> None:
    """Stop and have the session's work verified; print the feedback.

    SESSION is the socket path (default: $LHTB_SESSION). Exits 0 when the work
    passed, 1 when it was rejected.
    """
    try:
        with SessionClient(resolve_session(session)) as client:
            verdict = client.request("submit")
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(verdict_text(verdict))
    sys.exit(0 if verdict["passed"] else 1)
