"""``lhtb verify``: re-grade an episode's kept final state, with its seed or others."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import click
from rich.console import Console
from rich.table import Table

from lhtb.analysis._audit import Regrade, other_seeds, read_episode, regrade
from lhtb.errors import LhtbError
from lhtb.verify._pass import VerifierPass
from lhtb.verify._seeds import MAX_SEED


def _reward(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _scores(graded: VerifierPass | None) -> dict[str, float]:
    card = graded.scorecard if graded is not None else None
    return {s.name: s.score for s in card.subtasks} if card is not None else {}


def comparison_table(result: Regrade) -> Table:
    """Recorded vs re-computed reward (and subtask scores), one column per seed."""
    episode = result.episode
    final = episode.passes[-1] if episode.passes else None
    table = Table(
        title=f"{episode.config.task_name} / {episode.config.agent} (episode {episode.id})"
    )
    table.add_column("", no_wrap=True)
    table.add_column(f"recorded (seed {result.recorded_seed})")
    for graded in result.passes:
        table.add_column(f"re-graded (seed {graded.seed})")
    table.add_row(
        "reward",
        _reward(episode.reward),
        *(_reward(p.reward) + (f" ({p.error})" if p.error else "") for p in result.passes),
    )
    recorded = _scores(final)
    regraded = [_scores(p) for p in result.passes]
    for name in dict.fromkeys([*recorded, *(n for scores in regraded for n in scores)]):
        live = name in result.carried
        table.add_row(
            f"  {name}" + (" (live)" if live else ""),
            _reward(recorded.get(name)),
            *(_reward(s.get(name)) + (" from the record" if live else "") for s in regraded),
        )
    return table


def live_note(result: Regrade) -> str:
    """Which subtasks were taken from the record, and why ("" when none)."""
    names = result.carried
    if not names:
        return ""
    count = f"{len(names)} live subtask{'s' if len(names) > 1 else ''}"
    return (
        f"{count} \N{EM DASH} {', '.join(names)} \N{EM DASH} graded against the agent's running "
        "services during the episode, taken from the record: a re-grade has none"
    )


@click.command()
@click.argument("episode_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option(
    "--seed",
    "seed_values",
    type=click.IntRange(min=0, max=MAX_SEED),
    multiple=True,
    help="Grade on this seed instead of the recorded one (repeatable).",
)
@click.option(
    "--seeds",
    "seed_count",
    type=click.IntRange(min=1),
    default=None,
    help="Grade on K seeds (the recorded one and K-1 others) and print the spread.",
)
@click.option(
    "--task",
    "task_dir",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    default=None,
    help="The task directory (default: the one the episode recorded).",
)
@click.option("--backend", default=None, help="Sandbox backend (default: the episode's).")
def verify(
    episode_dir: Path,
    seed_values: tuple[int, ...],
    seed_count: int | None,
    task_dir: Path | None,
    backend: str | None,
) -> None:
    """Re-grade EPISODE_DIR's kept final state and print recorded vs re-computed reward.

    With no option it grades on the recorded seed and exits 1 unless the reward
    is reproduced exactly. --seed N / --seeds K grade the same final state on
    other seeds and print the spread (mean, min, max): how much luck is in the score.
    Subtasks the task declares live (graded against the agent's running services)
    are taken from the episode's record: a re-grade has no running services.
    """
    console = Console(width=None if sys.stdout.isatty() else 200)
    try:
        recorded = read_episode(episode_dir).config.seed
        assert recorded is not None
        seeds = list(seed_values) or (
            other_seeds(recorded, seed_count) if seed_count else [recorded]
        )
        result = anyio.run(
            lambda: regrade(episode_dir, seeds=seeds, task=task_dir, backend=backend)
        )
    except LhtbError as exc:
        raise click.ClickException(str(exc)) from exc
    console.print(comparison_table(result))
    note = live_note(result)
    spread = result.spread()
    if len(result.passes) > 1 and spread is not None:
        console.print(f"spread: {spread}")
    if note and any(p.seed != recorded for p in result.passes):
        console.print(
            f"the other seeds carry the recorded seed's scores of the {note}", markup=False
        )
    if recorded in seeds:
        live = f" ({note})" if note else ""
        if result.reproduced():
            console.print(
                f"reproduced: the recorded reward {_reward(result.episode.reward)}{live}",
                markup=False,
            )
        else:
            console.print("[bold red]NOT reproduced[/]: the re-grade on the recorded seed differs")
            if note:
                console.print(f"({note})", markup=False)
            raise SystemExit(1)
