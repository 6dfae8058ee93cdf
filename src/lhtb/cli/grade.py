"""``lhtb grade``: score a directory of artifacts with a task's verifier, no agent needed."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import click
from rich.console import Console
from rich.table import Table

from lhtb.errors import LhtbError
from lhtb.sandbox.registry import resolve_backend
from lhtb.task._loader import load_task
from lhtb.verify._pass import VerifierPass
from lhtb.verify._seeds import MAX_SEED
from lhtb.verify._verifier import Verifier


def scorecard_table(result: VerifierPass) -> Table:
    """One row per subtask: name, visibility, weight, score, message."""
    table = Table(title="scorecard")
    for column in ("subtask", "visibility", "weight", "score", "message"):
        table.add_column(column)
    for subtask in result.scorecard.subtasks if result.scorecard else ():
        table.add_row(
            subtask.name,
            str(subtask.visibility),
            f"{subtask.weight:g}",
            f"{subtask.score:.3f}",
            subtask.message or "",
        )
    return table


@click.command()
@click.argument("task_path", metavar="TASK", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Directory laid out like the sandbox's root: DIR/app/x.py is /app/x.py.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0, max=MAX_SEED),
    default=None,
    help="The grading seed the tests get as $LHTB_SEED (default: random, printed). "
    "An episode's seed is its episode.json config.seed.",
)
@click.option("--backend", default="auto", show_default=True, help="Sandbox backend name.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Where the verifier's logs go (default: runs/<task>-grade-<id>).",
)
def grade(
    task_path: Path, source: Path, seed: int | None, backend: str, out_dir: Path | None
) -> None:
    """Grade the artifacts in --from with TASK's hidden tests and print the scorecard.

    Only the task's declared artifacts are taken from the directory, under the
    same rules as an episode (separate isolation). Exits 1 when the tests
    produced no reward.
    """
    try:
        task = load_task(task_path)
        chosen = resolve_backend(backend)
        verifier = Verifier(task, chosen, seed=seed)
        if out_dir is not None:
            verifier.output_dir = out_dir
        result = anyio.run(verifier.grade_files, source)
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    console = Console(width=None if sys.stdout.isatty() else 200)
    if result.scorecard is not None:
        console.print(scorecard_table(result))
    reward = "none" if result.reward is None else f"{result.reward:.4f}"
    console.print(
        f"reward: {reward} ({result.outcome}; pass threshold {task.verifier.pass_threshold:g})"
    )
    if result.error:
        console.print(f"reason: {result.error}")
    console.print(f"seed: {result.seed}  logs: {verifier.output_dir / str(result.log_dir)}")
    if result.reward is None:
        raise SystemExit(1)
