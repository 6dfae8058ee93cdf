"""``lhtb run`` (a thin wrapper over :func:`lhtb.run_benchmark`) and ``lhtb cleanup``."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import click
from rich.console import Console
from rich.table import Table

from lhtb.bench._benchmark import BenchmarkAgent, run_benchmark
from lhtb.bench._executor import EpisodeExecutor, InProcessExecutor
from lhtb.bench._manifest import read_manifest
from lhtb.cli._tasks import collect_runnable_tasks
from lhtb.episode._record import ERROR_OUTCOMES, Episode, FeedbackMode, Outcome
from lhtb.errors import LhtbError, RunInterruptedError
from lhtb.sandbox.registry import available_backends, resolve_backend, usable_builtin_backends
from lhtb.task._model import Task, Tier

_HARNESS_FAULTS = frozenset({Outcome.INFRA_ERROR, Outcome.HARNESS_ERROR})
"""Outcomes that make ``lhtb run`` exit non-zero: the run itself, not an agent, failed."""


def results_table(episodes: list[Episode]) -> Table:
    """One row per episode: task, agent, attempt, outcome, reward, passes, minutes."""
    table = Table(title="results")
    for column in ("task", "agent", "attempt", "outcome", "reward", "passes", "minutes"):
        table.add_column(column)
    for episode in episodes:
        reward = "-" if episode.reward is None else f"{episode.reward:.3f}"
        table.add_row(
            episode.config.task_name,
            episode.config.agent,
            str(episode.attempt),
            str(episode.outcome),
            reward,
            str(len(episode.passes)),
            f"{episode.timings.total_sec / 60:.1f}",
        )
    return table


def failure_lines(episodes: list[Episode]) -> list[str]:
    """Why each failed episode failed, one line per distinct reason (said once, with its
    episodes), for under the results table."""
    reasons: dict[tuple[str, str], list[Episode]] = {}
    for episode in episodes:
        if episode.outcome in ERROR_OUTCOMES:
            reason = episode.error or "(no reason recorded; see its events.jsonl)"
            reasons.setdefault((str(episode.outcome), reason), []).append(episode)
    lines = []
    for (outcome, reason), failed in reasons.items():
        names = ", ".join(
            f"{e.config.task_name} / {e.config.agent} #{e.attempt}" for e in failed[:3]
        )
        more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
        retry = "" if failed[0].can_retry or outcome != Outcome.INFRA_ERROR else ", not retried"
        lines.append(f"{outcome}{retry} ({names}{more}): {reason}")
    return lines


TIER_OPTION = click.option(
    "--tier",
    type=click.Choice([t.value for t in Tier]),
    default=None,
    help="Only the tasks of this tier ([metadata].tier: short or long, by measurement; "
    "see docs/tasks.md).",
)


def load_task_args(paths: tuple[Path, ...], tier: str | None = None) -> list[Task]:
    """Every task under ``paths`` lhtb can run (of ``tier``, when given); all load
    problems reported together.

    Tasks that use a feature lhtb cannot run are skipped with a warning and a
    count; the run is refused only when nothing is left to run.
    """
    tasks, problems, skipped = collect_runnable_tasks(paths)
    if tier is not None and not problems:
        tiers = Counter(str(t.tier or "untiered") for t in tasks)
        tasks = [t for t in tasks if t.tier == tier]
        if not tasks:
            found = ", ".join(f"{n} {name}" for name, n in sorted(tiers.items()))
            raise click.ClickException(f"no task of tier {tier} here (found: {found})")
    if problems:
        raise click.ClickException("\n".join(str(p) for p in problems))
    if skipped:
        click.echo(
            f"warning: skipped {len(skipped)} of {len(tasks) + len(skipped)} task(s) that "
            "lhtb cannot run:",
            err=True,
        )
        for problem in skipped:
            click.echo(f"  {problem}", err=True)
    if not tasks:
        raise click.ClickException("no task left to run")
    return tasks


def parse_executor(value: str, forward_env: tuple[str, ...] = ()) -> EpisodeExecutor:
    """``local``, ``ray`` ($RAY_ADDRESS or this machine's cluster) or ``ray://HOST:PORT``.

    Raises:
        click.BadParameter: another value.
        RayNotInstalledError: ``ray`` is asked for but not installed.
    """
    if value == "local":
        return InProcessExecutor()
    if value == "ray" or value.startswith("ray://"):
        from lhtb.bench._ray_executor import DEFAULT_FORWARD_ENV, RayExecutor  # noqa: PLC0415

        address = None if value == "ray" else value
        return RayExecutor(address=address, forward_env=(*DEFAULT_FORWARD_ENV, *forward_env))
    raise click.BadParameter(
        f"{value!r}: use local, ray, or ray://HOST:PORT", param_hint="--executor"
    )


def parse_agent_args(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--ak key=value`` pairs as keyword arguments; a value that parses as JSON is that
    value (``0.2``, ``true``, ``[1, 2]``), anything else is text.

    Raises:
        click.BadParameter: a pair without ``=`` or with an empty key.
    """
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals or not key.strip().isidentifier():
            raise click.BadParameter(
                f"{pair!r}: use KEY=VALUE with KEY a Python identifier", param_hint="--ak"
            )
        try:
            arguments[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            arguments[key.strip()] = text
    return arguments


def default_run_dir() -> Path:
    """``runs/<local date-time>``: a new run directory per invocation."""
    return Path("runs") / datetime.now().strftime("%Y%m%d-%H%M%S")


@click.command()
@click.argument("tasks", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--agent",
    "agent_specs",
    multiple=True,
    default=("oracle",),
    show_default=True,
    help="oracle, nop, openai:MODEL, or module:Class; repeat for several agents.",
)
@click.option(
    "--ak",
    "agent_args",
    multiple=True,
    metavar="KEY=VALUE",
    help="An argument for the agents' constructors (e.g. --ak temperature=0.2); values "
    "are read as JSON when they parse (numbers, true/false, lists), else as text. Repeatable.",
)
@click.option(
    "--base-url",
    default=None,
    help="OpenAI-compatible endpoint for openai:MODEL agents (sets OPENAI_BASE_URL).",
)
@click.option(
    "--model",
    default=None,
    help="Model for the agents that take a `model` argument and name none (openai:MODEL "
    "names its own; oracle and nop use none). Recorded on the leaderboard.",
)
@click.option("--attempts", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="Episodes at once (default: what this machine's CPUs and memory hold).",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="Retries of an episode that ended in an infrastructure error.",
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
    default=None,
    help="Run directory (default: runs/<date-time>). Run again into it to resume.",
)
@click.option(
    "--max-passes",
    type=click.IntRange(min=1),
    default=None,
    help="Most verifier passes per episode (default: the task's [verifier].max_passes).",
)
@click.option(
    "--feedback",
    type=click.Choice([m.value for m in FeedbackMode]),
    default=FeedbackMode.BINARY.value,
    show_default=True,
    envvar="LHTB_VERIFIER_FEEDBACK",
)
@click.option(
    "--backend",
    type=click.Choice(["auto", *available_backends()]),
    default="auto",
    show_default=True,
    help="Sandbox backend (auto: docker when its daemon answers, else local).",
)
@click.option(
    "--stagger",
    type=click.FloatRange(min=0),
    default=0.5,
    show_default=True,
    help="Seconds between episode starts.",
)
@click.option(
    "--executor",
    "executor_arg",
    default="local",
    show_default=True,
    help="Where episodes run: local, ray (the cluster at $RAY_ADDRESS or on this machine), "
    "or ray://HOST:PORT (Ray Client).",
)
@click.option(
    "--forward-env",
    multiple=True,
    help="With a Ray executor: also pass this environment variable to the workers "
    "(API keys such as OPENAI_API_KEY are passed when set). Repeatable.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0, max=2**32 - 1),
    default=None,
    help="The run's seed; each episode's grading seed derives from it, the task and the "
    "attempt (default: random, kept in run.json).",
)
@click.option(
    "--checkpoint-every",
    "checkpoint_every",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SEC",
    help="Grade each agent's state in secret every SEC seconds of its budget while it works "
    "(default: the task's [verifier].checkpoint_interval_sec, else never).",
)
@TIER_OPTION
@click.option("--quiet", is_flag=True, help="Plain log lines instead of the live display.")
def run(
    tasks: tuple[Path, ...],
    agent_specs: tuple[str, ...],
    agent_args: tuple[str, ...],
    base_url: str | None,
    model: str | None,
    attempts: int,
    concurrency: int | None,
    retries: int,
    budget: float | None,
    out_dir: Path | None,
    max_passes: int | None,
    feedback: str,
    backend: str,
    stagger: float,
    executor_arg: str,
    forward_env: tuple[str, ...],
    seed: int | None,
    checkpoint_every: float | None,
    tier: str | None,
    quiet: bool,
) -> None:
    """Run agents on the tasks in TASKS (attempts x tasks x agents) and print a leaderboard.

    Finished episodes are kept: after Ctrl-C or a crash, run the same command
    with the same --out to finish the rest.
    """
    if base_url:
        os.environ["OPENAI_BASE_URL"] = base_url  # read by OpenAIAgent
    loaded = load_task_args(tasks, tier)
    run_dir = out_dir or default_run_dir()
    arguments = parse_agent_args(agent_args)
    live = not quiet and sys.stderr.isatty()
    try:
        agents = [
            BenchmarkAgent.from_spec(spec, model=model, kwargs=arguments)
            for spec in dict.fromkeys(agent_specs)
        ]
        executor = parse_executor(executor_arg, forward_env)
        result = anyio.run(
            lambda: run_benchmark(
                loaded,
                agents,
                output_dir=run_dir,
                attempts=attempts,
                concurrency=concurrency,
                retries=retries,
                backend=backend if executor_arg != "local" else resolve_backend(backend),
                budget=budget,
                max_passes=max_passes,
                feedback=feedback,
                stagger_sec=stagger,
                progress="rich" if live else "quiet",
                executor=executor,
                seed=seed,
                checkpoint_interval_sec=checkpoint_every,
            )
        )
    except RunInterruptedError as exc:
        click.echo(f"interrupted: {exc}", err=True)
        code = 143 if "SIGTERM" in exc.what else 130
        raise SystemExit(code) from None
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(results_table(list(result.episodes)))
    failures = failure_lines(list(result.episodes))
    if failures:
        click.echo("failed episodes:")
        for line in failures:
            click.echo(f"  {line}")
    console.print(result.leaderboard().rich_table())
    console.print(f"run directory: {run_dir}  (run id {result.run_id})")
    if any(e.outcome in _HARNESS_FAULTS for e in result.episodes):
        raise SystemExit(1)


@click.command()
@click.option(
    "--backend",
    type=click.Choice(["all", *available_backends()]),
    default="all",
    show_default=True,
    help="Sandbox backend, or all: every built-in backend usable here.",
)
@click.option("--run-id", default=None, help="Only this run's resources.")
@click.option(
    "--run-dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Only the resources of the run in this directory (its run.json names the run id).",
)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Every lhtb resource on the backend, of every run and every user of the daemon.",
)
def cleanup(backend: str, run_id: str | None, run_dir: Path | None, everything: bool) -> None:
    """Remove the sandboxes and snapshots lhtb left behind: one run's (--run-id,
    --run-dir) or all (--all)."""
    if sum((run_id is not None, run_dir is not None, everything)) != 1:
        raise click.UsageError(
            "say whose resources to remove: --run-id ID, --run-dir DIR, or --all "
            "(every lhtb resource on the daemon, other users' runs included)"
        )
    if run_dir is not None:
        try:
            manifest = read_manifest(run_dir)
        except LhtbError as exc:
            raise click.ClickException(str(exc)) from exc
        if manifest is None:
            raise click.ClickException(f"{run_dir}: no run.json; pass --run-id instead")
        run_id = str(manifest["run_id"])
    names = usable_builtin_backends() if backend == "all" else [backend]
    for name in names:
        try:
            removed = anyio.run(resolve_backend(name).cleanup, run_id)
        except LhtbError as exc:
            raise click.ClickException(str(exc)) from exc
        click.echo(f"{name}: removed {removed} resource(s)")
