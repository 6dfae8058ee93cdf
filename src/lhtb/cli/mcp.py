"""``lhtb mcp``: one episode whose agent is an MCP client on stdio."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import anyio
import click

from lhtb.cli.session import episode_args, episode_options, finished_line
from lhtb.errors import LhtbError
from lhtb.session.mcp_detach import relay_to_detached


@click.command()
@episode_options
@click.option("--name", default="mcp", show_default=True, help="The agent's name.")
@click.option(
    "--attached",
    is_flag=True,
    hidden=True,
    help="Serve in this process (the front runs the server so, in its own session).",
)
def mcp(
    task_path: Path,
    budget: float | None,
    backend: str,
    seed: int | None,
    feedback: str,
    checkpoint_every: float | None,
    out_dir: Path | None,
    name: str,
    attached: bool,
) -> None:
    """Run one episode of TASK for an MCP client: the session's tools over stdio.

    Tools: hello, status, exec, read_file, write_file, submit. Needs the `mcp`
    extra (pip install 'lhtb[mcp]'). The outcome goes to stderr at the end. The
    server runs in its own session, so the episode outlives a client that
    leaves and kills this process: leaving is a stop, verified as usual.
    """
    if not attached:
        options = {
            "--budget": budget,
            "--seed": seed,
            "--checkpoint-every": checkpoint_every,
            "--out": out_dir,
        }
        argv = [sys.executable, "-c", _MAIN, "mcp", str(task_path), "--attached"]
        argv += ["--backend", backend, "--feedback", feedback, "--name", name]
        argv += [
            arg for key, value in options.items() if value is not None for arg in (key, str(value))
        ]
        sys.exit(relay_to_detached(argv))
    from lhtb.session.mcp_server import serve_mcp  # noqa: PLC0415 - optional dependency

    try:
        task, args = episode_args(
            task_path, budget, backend, seed, feedback, checkpoint_every, out_dir
        )
        episode = anyio.run(functools.partial(serve_mcp, task, agent_name=name, **args))
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(finished_line(episode, args["output_dir"]), err=True)


_MAIN = "import sys; from lhtb.cli import main; sys.exit(main())"
