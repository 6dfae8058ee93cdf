"""``lhtb run`` and ``lhtb cleanup``."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import anyio
import click
from rich.console import Console
from rich.table import Table

from lhtb.agents import agent_factory
from lhtb.episode import Episode, FeedbackMode, Outcome
from lhtb.errors import LhtbError, TaskLoadErrors
from lhtb.loader import load_tasks
from lhtb.runner import run_episode
from lhtb.sandbox.base import SandboxBackend
from lhtb.sandbox.registry import resolve_backend
from lhtb.task import Task

_PROGRESS = {
    "provision_started": "starting sandbox",
    "agent_turn_started": "agent turn {turn}",
    "verifier_pass_started": "verifier pass {pass_no}",
    "episode_finished": "{outcome}",
}


def results_table(episodes: list[Episode]) -> Table:
    """One row per episode: task, outcome, reward, passes, time, directory."""
    table = Table(title="results")
    for column in ("task", "agent", "outcome", "reward", "passes", "minutes"):
        table.add_column(column)
    for episode in episodes:
        reward = "-" if episode.reward is None else f"{episode.reward:.3f}"
        table.add_row(
            episode.config.task_name,
            episode.config.agent,
            str(episode.outcome),
            reward,
            str(len(episode.passes)),
            f"{episode.timings.total_sec / 60:.1f}",
        )
    return table


def _load(paths: tuple[Path, ...]) -> list[Task]:
    tasks: list[Task] = []
    problems: list[LhtbError] = []
    for path in paths:
        try:
            tasks.extend(load_tasks(path))
        except TaskLoadErrors as exc:
            problems.extend(exc.errors)
        except LhtbError as exc:
            problems.append(exc)
    if problems:
        raise click.ClickException("\n".join(str(p) for p in problems))
    return tasks


@click.command()
@click.argument("tasks", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--agent",
    "agent_spec",
    default="oracle",
    show_default=True,
    help="oracle, nop, or module:Class",
)
@click.option(
    "--budget",
    type=float,
    default=None,
    help="Agent budget in seconds (default: the task's [agent].timeout_sec).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Directory that receives one folder per episode.",
)
@click.option(
    "--feedback",
    type=click.Choice([m.value for m in FeedbackMode]),
    default=FeedbackMode.BINARY.value,
    show_default=True,
    envvar="LHTB_VERIFIER_FEEDBACK",
)
@click.option("--backend", default="auto", show_default=True, help="Sandbox backend name.")
def run(
    tasks: tuple[Path, ...],
    agent_spec: str,
    budget: float | None,
    out_dir: Path,
    feedback: str,
    backend: str,
) -> None:
    """Run an agent on each task in TASKS and print the results."""
    console = Console(stderr=True)
    loaded = _load(tasks)
    run_id = f"cli-{uuid.uuid4().hex[:8]}"

    async def run_all(sandbox_backend: SandboxBackend) -> list[Episode]:
        episodes: list[Episode] = []
        for task in loaded:
            factory = agent_factory(agent_spec, task)
            with console.status(f"{task.name}: loading") as status:

                def show(event: str, fields: dict[str, Any], name: str = task.name) -> None:
                    if event in _PROGRESS:
                        status.update(f"{name}: {_PROGRESS[event].format(**fields)}")

                episodes.append(
                    await run_episode(
                        task,
                        factory,
                        backend=sandbox_backend,
                        budget=budget,
                        feedback=feedback,
                        output_dir=out_dir / f"{task.name.replace('/', '__')}-{run_id}",
                        run_id=run_id,
                        on_event=show,
                    )
                )
        return episodes

    try:
        episodes = anyio.run(run_all, resolve_backend(backend))
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    except KeyboardInterrupt:
        console.print("interrupted: removing this run's sandboxes")
        anyio.run(resolve_backend(backend).cleanup, run_id)
        raise SystemExit(130) from None
    Console().print(results_table(episodes))
    if any(e.outcome is Outcome.INFRA_ERROR for e in episodes):
        raise SystemExit(1)


@click.command()
@click.option("--backend", default="auto", show_default=True, help="Sandbox backend name.")
@click.option("--run-id", default=None, help="Only this run's resources (default: all).")
def cleanup(backend: str, run_id: str | None) -> None:
    """Remove every sandbox and snapshot lhtb left behind (by label)."""
    removed = anyio.run(resolve_backend(backend).cleanup, run_id)
    click.echo(f"removed {removed} resource(s)")
