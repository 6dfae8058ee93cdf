"""The task gates: solvable, not by doing nothing, not by a shortcut, graded reproducibly.

For each task the oracle (the reference ``solution/solve.sh``) must reach the
task's pass threshold, and the nop agent (which stops at once; run without
continue-until-timeout and with a short budget) must score below
:data:`NOP_MAX_REWARD` and still get a reward (a verifier that errors on an
untouched sandbox is a task bug). Each weak solution the task ships
(``tests/weak_solution*/``, see :mod:`lhtb.gates._weak_gate`) must score below the
task's ``weak_max_reward`` (0.5 unless declared) and be graded reproducibly:
re-graded on its episode's seed it gets exactly the same scores; its spread
over five seeds is reported. The sweeps go through :func:`lhtb.run_benchmark`,
so they run in parallel, retry infrastructure errors and resume. With a record
file (:mod:`lhtb.gates._weak_record`), tasks unchanged since their last passing weak
gate skip it; the oracle and nop gates always run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from lhtb._util.version import __version__
from lhtb.bench._benchmark import run_benchmark
from lhtb.episode._progress import ProgressArg
from lhtb.episode._record import Episode
from lhtb.gates._weak_gate import (
    SPREAD_SEEDS,
    WEAK_MAX_REWARD,
    WeakCheck,
    WeakSolutionAgent,
    check_weak_solutions,
)
from lhtb.gates._weak_record import WeakRecord, new_record, read_records, write_records
from lhtb.sandbox.base import SandboxBackend
from lhtb.task._model import Task

__all__ = ["NOP_MAX_REWARD", "TaskCheck", "WeakCheck", "WeakSolutionAgent", "check_tasks"]

NOP_BUDGET_SEC = 60.0
"""The nop agent's budget: it stops at once, so this only bounds a stuck sandbox."""
NOP_MAX_REWARD = 0.05
"""The nop agent (an untouched starter) must score below this (and below the threshold)."""


def _describe(episode: Episode | None) -> str:
    if episode is None:
        return "did not run"
    reward = "no reward" if episode.reward is None else f"reward {episode.reward:.3f}"
    detail = f" ({episode.error})" if episode.error else ""
    return f"{episode.outcome}, {reward}{detail}"


@attrs.frozen
class TaskCheck:
    """The gates of one task."""

    task: str
    threshold: float
    oracle: Episode | None
    nop: Episode | None
    weak: tuple[WeakCheck, ...] = ()
    recorded: WeakRecord | None = None
    """The passing weak gate of this exact task, from the record file (``weak`` is empty)."""
    weak_max_reward: float = WEAK_MAX_REWARD
    """The task's weak-solution gate (``[verifier] weak_max_reward``)."""

    @property
    def oracle_passed(self) -> bool:
        """The oracle reached the pass threshold."""
        return self.oracle is not None and (self.oracle.reward or 0.0) >= self.threshold

    @property
    def nop_limit(self) -> float:
        """The nop agent must score below this: :data:`NOP_MAX_REWARD` or a lower threshold."""
        return min(NOP_MAX_REWARD, self.threshold)

    @property
    def nop_passed(self) -> bool:
        """The nop agent got a reward, and it is below :attr:`nop_limit`."""
        reward = self.nop.reward if self.nop is not None else None
        return reward is not None and reward < self.nop_limit

    @property
    def ok(self) -> bool:
        """Every gate passed."""
        return not self.problems

    def weak_results(self) -> dict[str, tuple[int, float]]:
        """Seed and reward of each weak solution that ran."""
        return {
            w.name: (w.episode.config.seed, w.reward)
            for w in self.weak
            if w.episode is not None and w.episode.config.seed is not None and w.reward is not None
        }

    @property
    def problems(self) -> tuple[str, ...]:
        """What failed, one sentence per gate."""
        problems = []
        if not self.oracle_passed:
            problems.append(f"oracle must reach {self.threshold:g}: {_describe(self.oracle)}")
        if not self.nop_passed:
            problems.append(
                f"nop must get a reward below {self.nop_limit:g}: {_describe(self.nop)}"
            )
        for weak in self.weak:
            problems.extend(weak.problems)
        return tuple(problems)


async def check_tasks(
    tasks: Sequence[Task],
    *,
    output_dir: str | Path,
    backend: SandboxBackend | str | None = None,
    concurrency: int | None = None,
    nop_budget: float = NOP_BUDGET_SEC,
    progress: ProgressArg = None,
    stagger_sec: float = 0.5,
    spread_seeds: int = SPREAD_SEEDS,
    record: str | Path | None = None,
) -> list[TaskCheck]:
    """Run the gates on ``tasks``; records go to ``output_dir/{oracle,nop,weak}``.

    Each weak solution is re-graded on ``spread_seeds`` seeds, its episode's own first
    (so 1 checks reproducibility and measures no spread). With ``record`` (a JSON
    file), tasks whose checksum it holds skip the weak gate, and every task whose weak
    gate runs and passes is written to it.

    Raises:
        RunConfigChangedError, RunLockedError, RunInterruptedError: as
            :func:`lhtb.run_benchmark`.
        LhtbError: ``record`` exists and is not a record file.
    """
    root = Path(output_dir)
    record_path = Path(record) if record is not None else None
    records = read_records(record_path) if record_path is not None else {}
    trusted = {
        t.name: records[t.name] for t in tasks if t.name in records and records[t.name].holds_for(t)
    }
    common = {
        "backend": backend,
        "concurrency": concurrency,
        "progress": progress,
        "stagger_sec": stagger_sec,
    }
    oracle = await run_benchmark(tasks, "oracle", output_dir=root / "oracle", **common)  # type: ignore[arg-type]
    nop = await run_benchmark(
        tasks,
        "nop",
        output_dir=root / "nop",
        budget=nop_budget,
        continue_until_timeout=False,
        **common,  # type: ignore[arg-type]
    )
    weak = await check_weak_solutions(
        [t for t in tasks if t.name not in trusted],
        output_dir=root / "weak",
        backend=backend,
        concurrency=concurrency,
        progress=progress,
        stagger_sec=stagger_sec,
        spread_seeds=spread_seeds,
    )
    by_task = {
        "oracle": {e.config.task_name: e for e in oracle.episodes},
        "nop": {e.config.task_name: e for e in nop.episodes},
    }
    checks = [
        TaskCheck(
            task=task.name,
            threshold=task.verifier.pass_threshold,
            oracle=by_task["oracle"].get(task.name),
            nop=by_task["nop"].get(task.name),
            weak=tuple(weak.get(task.name, ())),
            recorded=trusted.get(task.name),
            weak_max_reward=task.verifier.weak_max_reward,
        )
        for task in tasks
    ]
    if record_path is not None:
        _update_records(record_path, records, tasks, checks)
    return checks


def _update_records(
    path: Path, records: dict[str, WeakRecord], tasks: Sequence[Task], checks: list[TaskCheck]
) -> None:
    fresh = {
        task.name: new_record(task, check.weak_results(), __version__)
        for task, check in zip(tasks, checks, strict=True)
        if check.recorded is None and check.weak and not any(w.problems for w in check.weak)
    }
    if fresh:
        write_records(path, {**records, **fresh})
