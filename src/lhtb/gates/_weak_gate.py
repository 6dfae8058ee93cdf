"""The weak-solution gate of ``lhtb check``: shortcuts must fail, and grade reproducibly.

A task ships weak solutions in ``tests/weak_solution/`` (passes the public
checks only, which the gate checks) and ``tests/weak_solution_<label>/`` (other shortcuts, e.g. a
blacklist or hard-coded answers). Each directory is copied over the root of the
agent sandbox (``weak_solution/app/x.py`` -> ``/app/x.py``), the agent stops,
and the verifier runs once. The gate wants a reward below the task's
``[verifier] weak_max_reward`` (default :data:`WEAK_MAX_REWARD`), and a
reproducible grade: the kept final state re-graded on the episode's seed gives
exactly the same subtask scores (the
task's ``live`` subtasks are taken from the record: see :mod:`lhtb.analysis._audit`). Its
spread over :data:`SPREAD_SEEDS` seeds is reported.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
import attrs

from lhtb.agents._protocol import Turn
from lhtb.analysis._audit import Regrade, Spread, other_seeds, regrade
from lhtb.bench._benchmark import run_benchmark
from lhtb.episode._progress import ProgressArg
from lhtb.episode._record import Episode
from lhtb.errors import LhtbError
from lhtb.sandbox.base import SandboxBackend
from lhtb.task._model import DEFAULT_WEAK_MAX_REWARD, Task, Visibility
from lhtb.verify._scoring import Scorecard

__all__ = [
    "SPREAD_SEEDS",
    "WEAK_MAX_REWARD",
    "WeakCheck",
    "WeakSolutionAgent",
    "check_weak_solutions",
    "weak_solutions",
]

WEAK_MAX_REWARD = DEFAULT_WEAK_MAX_REWARD
"""A weak solution must score below this unless its task declares ``weak_max_reward``."""
SPREAD_SEEDS = 5
"""Seeds each weak solution is graded on (the episode's own and others)."""
WEAK_BUDGET_SEC = 600.0
WEAK_PREFIX = "weak_solution"


def weak_solutions(task: Task) -> list[Path]:
    """The task's weak-solution directories, ``weak_solution`` first."""
    if task.tests_dir is None:
        return []
    found = [p for p in task.tests_dir.glob(f"{WEAK_PREFIX}*") if p.is_dir()]
    return sorted(found, key=lambda p: (p.name != WEAK_PREFIX, p.name))


class WeakSolutionAgent:
    """Copies a weak-solution directory over the sandbox root and stops."""

    name = "weak-solution"

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    async def run(self, turn: Turn) -> None:
        """Write every file of ``root`` to the same path under ``/`` (first turn only)."""
        if turn.feedback:
            return
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            target = "/" + path.relative_to(self.root).as_posix()
            await turn.sandbox.write_file(
                target, path.read_bytes(), mode=path.stat().st_mode & 0o777
            )


def _card_scores(card: Scorecard | None) -> tuple[float, list[tuple[str, float, float]]] | None:
    if card is None:
        return None
    return card.reward, [(s.name, s.score, s.weight) for s in card.subtasks]


@attrs.frozen
class WeakCheck:
    """One weak solution of one task: its episode and its re-gradings."""

    task: str
    name: str
    episode: Episode | None
    regraded: Regrade | None = None
    error: str | None = None
    max_reward: float = WEAK_MAX_REWARD
    """The task's gate: the reward must stay below it."""

    @property
    def reward(self) -> float | None:
        """The episode's reward."""
        return self.episode.reward if self.episode is not None else None

    def scores(self) -> tuple[object, object]:
        """The reward and subtask scores recorded, and re-graded on the episode's seed."""
        if self.episode is None or self.regraded is None:
            return None, None
        same = [p for p in self.regraded.passes if p.seed == self.episode.config.seed]
        again = _card_scores(same[0].scorecard) if same else None
        return _card_scores(self.episode.scorecard), again

    @property
    def reproducible(self) -> bool:
        """Re-graded on the episode's seed, the reward and every subtask score are the same."""
        recorded, again = self.scores()
        return recorded is not None and recorded == again

    @property
    def spread(self) -> Spread | None:
        """The reward's spread over the seeds it was re-graded on."""
        return self.regraded.spread() if self.regraded is not None else None

    @property
    def failing_public(self) -> dict[str, float]:
        """Public subtasks scored below 1.0 (the ``weak_solution`` one must pass them all:
        that is what proves the hidden cases, not the public ones, make it fail)."""
        card = self.episode.scorecard if self.episode is not None else None
        if card is None:
            return {}
        public = [s for s in card.subtasks if s.visibility is Visibility.PUBLIC]
        return {s.name: s.score for s in public if s.score != 1.0}

    @property
    def problems(self) -> tuple[str, ...]:
        """What failed, one sentence each."""
        where = f"{self.name}: "
        if self.error is not None:
            return (where + self.error,)
        problems = []
        if self.reward is None:
            problems.append(where + "no reward")
        elif self.reward >= self.max_reward:
            problems.append(where + f"scores {self.reward:.3f} (must stay < {self.max_reward:g})")
        if self.name == WEAK_PREFIX and self.failing_public:
            problems.append(where + f"must pass every public check, fails {self.failing_public}")
        if not self.reproducible:
            recorded, again = self.scores()
            problems.append(where + f"not reproducible on its seed: {recorded} then {again}")
        return tuple(problems)


async def _regrade(
    check: WeakCheck,
    directory: Path,
    backend: SandboxBackend | str | None,
    spread_seeds: int,
) -> WeakCheck:
    assert check.episode is not None
    seed = check.episode.config.seed
    if seed is None or check.episode.final_inputs is None:
        return attrs.evolve(check, error="the episode kept no seed or final inputs")
    try:
        result = await regrade(directory, seeds=other_seeds(seed, spread_seeds), backend=backend)
    except LhtbError as exc:
        return attrs.evolve(check, error=f"re-grading failed: {exc}")
    return attrs.evolve(check, regraded=result)


def _announcer(progress: ProgressArg) -> Callable[[str], None]:
    """Plain timestamped lines on stderr for the re-grading phase (silent for ``none`` and
    for a caller's own reporter, which has no place for them)."""
    if not isinstance(progress, str) or progress == "none":
        return lambda text: None

    def say(text: str) -> None:
        sys.stderr.write(f"{time.strftime('%H:%M:%S')} {text}\n")
        sys.stderr.flush()

    return say


def _directories(root: Path) -> dict[str, Path]:
    found = {}
    for record in sorted(root.glob("*/episode.json")):
        try:
            found[Episode.load(record).id] = record.parent
        except LhtbError:
            continue
    return found


async def check_weak_solutions(
    tasks: Sequence[Task],
    *,
    output_dir: Path,
    backend: SandboxBackend | str | None,
    concurrency: int | None,
    progress: ProgressArg,
    stagger_sec: float,
    spread_seeds: int = SPREAD_SEEDS,
) -> dict[str, list[WeakCheck]]:
    """Run and re-grade every weak solution of ``tasks`` on ``spread_seeds`` seeds (the
    episode's own first: 1 checks reproducibility only); checks by task name."""
    names = sorted({p.name for task in tasks for p in weak_solutions(task)})
    checks: dict[str, list[WeakCheck]] = {task.name: [] for task in tasks}
    pending: list[tuple[int, str, Path]] = []
    for name in names:
        chosen = [t for t in tasks if any(p.name == name for p in weak_solutions(t))]
        root = output_dir / name

        def maker(task: Task, name: str = name) -> WeakSolutionAgent:
            assert task.tests_dir is not None
            return WeakSolutionAgent(task.tests_dir / name)

        result = await run_benchmark(
            chosen,
            {name: maker},
            output_dir=root,
            backend=backend,
            concurrency=concurrency,
            progress=progress,
            stagger_sec=stagger_sec,
            budget=WEAK_BUDGET_SEC,
            continue_until_timeout=False,
        )
        where = _directories(root)
        gates = {task.name: task.verifier.weak_max_reward for task in chosen}
        for episode in result.episodes:
            task_name = episode.config.task_name
            entries = checks[task_name]
            entries.append(WeakCheck(task_name, name, episode, max_reward=gates[task_name]))
            pending.append((len(entries) - 1, task_name, where[episode.id]))
    limiter = anyio.CapacityLimiter(concurrency or 2)
    say = _announcer(progress)
    say(f"re-grading {len(pending)} weak solutions on {spread_seeds} seed(s) each")
    done = 0

    async def regrade_one(index: int, task_name: str, directory: Path) -> None:
        nonlocal done
        async with limiter:
            entries = checks[task_name]
            entries[index] = await _regrade(entries[index], directory, backend, spread_seeds)
        done += 1
        check = entries[index]
        verdict = "reproduced" if check.reproducible else "NOT reproduced"
        say(f"re-graded {done}/{len(pending)}: {task_name} {check.name}: {verdict}")

    async with anyio.create_task_group() as group:
        for index, task_name, directory in pending:
            group.start_soon(regrade_one, index, task_name, directory)
    return checks
