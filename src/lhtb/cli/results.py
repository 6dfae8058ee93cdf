"""``lhtb leaderboard``, ``lhtb report``, ``lhtb baseline`` and ``lhtb check``."""

from __future__ import annotations

import io
import sys
from datetime import datetime
from pathlib import Path

import anyio
import click
from rich.console import Console
from rich.table import Table

from lhtb.analysis._human_baseline import HumanBaseline
from lhtb.analysis._leaderboard import Leaderboard
from lhtb.analysis._leaderboard_render import budget_scores
from lhtb.cli.run import TIER_OPTION, load_task_args
from lhtb.errors import LhtbError, RunInterruptedError
from lhtb.gates._check import NOP_BUDGET_SEC, NOP_MAX_REWARD, TaskCheck, check_tasks
from lhtb.gates._weak_gate import SPREAD_SEEDS
from lhtb.report._html import TRAJECTORY_CHARS, write_report
from lhtb.sandbox.registry import resolve_backend

_RUN_DIRS = click.argument(
    "run_dirs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path)
)
_BASELINE = click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Human baseline file (`lhtb baseline`): measured task times for the time horizon.",
)


def _measured_minutes(path: Path | None) -> dict[str, float] | None:
    return None if path is None else HumanBaseline.load(path).minutes


@click.command()
@_RUN_DIRS
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json", "markdown"]),
    default="table",
    show_default=True,
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file instead of standard output.",
)
@_BASELINE
@click.option(
    "--with-budget",
    "with_budget",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SEC",
    help="Instead of the leaderboard: what each row's agent scored with a budget of SEC "
    "seconds (up to the runs' budget), read off the reward curves.",
)
def leaderboard(
    run_dirs: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    baseline: Path | None,
    with_budget: float | None,
) -> None:
    """The leaderboard of the runs in RUN_DIRS (errors count 0; solved at R >= 0.95)."""
    try:
        board = Leaderboard.from_dirs(*run_dirs, baseline=_measured_minutes(baseline))
        scores = None if with_budget is None else board.reward_with_budget(with_budget)
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    if scores is not None:
        assert with_budget is not None
        text = budget_scores(scores, with_budget, fmt)
        if output is None:
            click.echo(text, nl=not text.endswith("\n"))
        else:
            output.write_text(text, encoding="utf-8")
        return
    if fmt == "table":
        if output is None:
            console = Console(width=None if sys.stdout.isatty() else 200)
        else:
            console = Console(file=io.StringIO(), record=True, width=200)
        console.print(board.rich_table())
        if board.apart:
            console.print("dimmed rows are not comparable (diagnostic feedback or changed budget)")
        console.print(board.time_note())
        if output is not None:
            output.write_text(console.export_text(), encoding="utf-8")
        return
    text = {"csv": board.to_csv, "json": board.to_json, "markdown": board.to_markdown}[fmt]()
    if output is None:
        click.echo(text, nl=not text.endswith("\n"))
    else:
        output.write_text(text, encoding="utf-8")


@click.command()
@_RUN_DIRS
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
)
@click.option("--title", default=None, help="Page title.")
@click.option(
    "--trajectory-chars",
    type=click.IntRange(min=0),
    default=TRAJECTORY_CHARS,
    show_default=True,
    help="Characters of each episode's trajectory to include (0: none).",
)
@_BASELINE
def report(
    run_dirs: tuple[Path, ...],
    output: Path,
    title: str | None,
    trajectory_chars: int,
    baseline: Path | None,
) -> None:
    """Write one self-contained HTML report of the runs in RUN_DIRS."""
    try:
        path = write_report(
            *run_dirs,
            output=output,
            title=title,
            trajectory_chars=trajectory_chars,
            baseline=_measured_minutes(baseline),
        )
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"wrote {path} ({path.stat().st_size // 1024} KiB)")


@click.command()
@_RUN_DIRS
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("baseline.json"),
    show_default=True,
)
def baseline(run_dirs: tuple[Path, ...], output: Path) -> None:
    """Measure per-task human time-to-solve from the `human:*` episodes in RUN_DIRS."""
    try:
        measured = HumanBaseline.from_dirs(*run_dirs)
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    table = Table(title="human baseline (median over people of time-to-solve)")
    for column in ("task", "minutes", "people", "unsolved episodes"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, entry in measured.tasks.items():
        table.add_row(task, f"{entry.minutes:.1f}", str(entry.people), str(entry.unsolved_episodes))
    Console(width=None if sys.stdout.isatty() else 200).print(table)
    if measured.unsolved_only:
        click.echo(f"played but unsolved (no time): {', '.join(measured.unsolved_only)}")
    click.echo(f"wrote {measured.save(output)} ({len(measured.tasks)} tasks)")


def check_table(checks: list[TaskCheck]) -> Table:
    """One row per task: both gates and what failed."""
    table = Table(title=f"task gates (oracle >= threshold, nop < {NOP_MAX_REWARD:g})")
    for column in ("task", "oracle", "nop", "result"):
        table.add_column(column)
    for check in checks:
        oracle = "-" if check.oracle is None or check.oracle.reward is None else check.oracle.reward
        nop = "-" if check.nop is None or check.nop.reward is None else check.nop.reward
        table.add_row(
            check.task,
            f"{oracle:.3f}" if isinstance(oracle, float) else oracle,
            f"{nop:.3f}" if isinstance(nop, float) else nop,
            "ok" if check.ok else "FAIL: " + "; ".join(check.problems),
            style=None if check.ok else "red",
        )
    return table


def weak_table(checks: list[TaskCheck]) -> Table:
    """One row per weak solution: reward, reproducibility on its seed, spread over seeds."""
    table = Table(title="weak solutions (reward < the task's gate, same scores twice on one seed)")
    for column in ("task", "weak solution", "seed", "reward", "gate", "twice on seed", "spread"):
        table.add_column(column)
    for check in checks:
        for weak in check.weak:
            seed = weak.episode.config.seed if weak.episode is not None else None
            spread = weak.spread
            carried = weak.regraded.carried if weak.regraded is not None else ()
            table.add_row(
                check.task,
                weak.name,
                "-" if seed is None else str(seed),
                "-" if weak.reward is None else f"{weak.reward:.3f}",
                f"< {weak.max_reward:g}",
                ("identical" if weak.reproducible else "DIFFERENT")
                + (f" (live from the record: {', '.join(carried)})" if carried else ""),
                "-" if spread is None or spread.n < 2 else str(spread),
                style=None if not weak.problems else "red",
            )
        recorded = check.recorded.weak if check.recorded is not None else ()
        for entry in recorded:
            assert check.recorded is not None
            table.add_row(
                check.task,
                entry.name,
                str(entry.seed),
                f"{entry.reward:.3f}",
                f"< {check.weak_max_reward:g}",
                f"recorded {check.recorded.checked}",
                "-",
                style="dim",
            )
    return table


@click.command()
@click.argument("tasks", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Where the gate episodes go (default: runs/check-<date-time>).",
)
@click.option("--concurrency", type=click.IntRange(min=1), default=None)
@click.option("--backend", default="auto", show_default=True, help="Sandbox backend name.")
@click.option("--nop-budget", type=float, default=NOP_BUDGET_SEC, show_default=True)
@click.option(
    "--spread-seeds",
    type=click.IntRange(min=1),
    default=SPREAD_SEEDS,
    show_default=True,
    help="Seeds each weak solution is re-graded on (its own first; 1 = reproducibility only).",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="JSON file of passing weak gates by task checksum: tasks it holds unchanged skip "
    "the weak gate (shown as recorded); tasks whose weak gate runs and passes are added.",
)
@TIER_OPTION
@click.option("--quiet", is_flag=True, help="Plain log lines instead of the live display.")
def check(
    tasks: tuple[Path, ...],
    out_dir: Path | None,
    concurrency: int | None,
    backend: str,
    nop_budget: float,
    spread_seeds: int,
    record: Path | None,
    tier: str | None,
    quiet: bool,
) -> None:
    """Gate every task: the oracle must pass it, the nop agent and weak solutions must not.

    Weak solutions (tests/weak_solution*/) must also grade reproducibly: the
    same scores twice on one seed; their spread over --spread-seeds seeds is printed.
    """
    loaded = load_task_args(tasks, tier)
    root = out_dir or Path("runs") / datetime.now().strftime("check-%Y%m%d-%H%M%S")
    live = not quiet and sys.stderr.isatty()
    try:
        checks = anyio.run(
            lambda: check_tasks(
                loaded,
                output_dir=root,
                backend=resolve_backend(backend),
                concurrency=concurrency,
                nop_budget=nop_budget,
                spread_seeds=spread_seeds,
                record=record,
                progress="rich" if live else "quiet",
            )
        )
    except RunInterruptedError as exc:
        click.echo(f"interrupted: {exc}", err=True)
        raise SystemExit(130) from None
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(check_table(checks))
    if any(c.weak or c.recorded for c in checks):
        console.print(weak_table(checks))
    failing = [c for c in checks if not c.ok]
    passed = len(checks) - len(failing)
    click.echo(f"{passed}/{len(checks)} tasks pass every gate; records in {root}")
    skipped = sum(c.recorded is not None for c in checks)
    if record is not None and skipped:
        click.echo(f"weak gate of {skipped} unchanged task(s) taken from {record}")
    if failing:
        for c in failing:
            click.echo(f"FAIL {c.task}: {'; '.join(c.problems)}", err=True)
        raise SystemExit(1)
