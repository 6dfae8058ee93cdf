"""``lhtb mcp``: one episode whose agent is an MCP client on stdio."""

from __future__ import annotations

import functools
from pathlib import Path

import anyio
import click

from lhtb.cli.session import episode_args, episode_options, finished_line
from lhtb.errors import LhtbError


@click.command()
@episode_options
@click.option("--name", default="mcp", show_default=True, help="The agent's name.")
def mcp(
    task_path: Path,
    budget: float | None,
    backend: str,
    seed: int | None,
    feedback: str,
    out_dir: Path | None,
    name: str,
) -> None:
    """Run one episode of TASK for an MCP client: the session's tools over stdio.

    Tools: hello, status, exec, read_file, write_file, submit. Needs the `mcp`
    extra (pip install 'lhtb[mcp]'). The outcome goes to stderr at the end.
    """
    from lhtb.session.mcp_server import serve_mcp  # noqa: PLC0415 - optional dependency

    try:
        task, args = episode_args(task_path, budget, backend, seed, feedback, out_dir)
        episode = anyio.run(functools.partial(serve_mcp, task, agent_name=name, **args))
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(finished_line(episode, args["output_dir"]), err=True)
