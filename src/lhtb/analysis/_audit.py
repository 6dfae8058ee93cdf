"""Re-grading an episode's kept final state: how much of a score is reproducible, how much luck.

An episode keeps the inputs of its final verification (``final-inputs/``) and
records its grading seed. :func:`regrade` grades those inputs again in fresh
verifier sandboxes: with the recorded seed the reward must come out the same;
with other seeds the spread shows how much the score depends on which hidden
cases were drawn. ``lhtb verify`` and the reproducibility gate of ``lhtb
check`` are built on it.

A re-grade is never live: no agent service runs beside it. The subtasks a task
declares ``live`` (they graded the agent's running services during the
episode) are therefore taken from the episode's record, and the re-computed
reward is the weighted mean with those recorded scores.
"""

from __future__ import annotations

import statistics
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import anyio
import attrs

from lhtb.episode._record import Episode
from lhtb.errors import LhtbError
from lhtb.sandbox.base import SandboxBackend
from lhtb.sandbox.registry import resolve_backend
from lhtb.task._loader import load_task
from lhtb.task._model import Task
from lhtb.verify._pass import VerifierPass
from lhtb.verify._scoring import Scorecard, Subtask
from lhtb.verify._seeds import check_seed, derive_seed
from lhtb.verify._verifier import Verifier, kept_archives, prepare_verifier_image

__all__ = [
    "Regrade",
    "Spread",
    "other_seeds",
    "read_episode",
    "regrade",
]

CLEANUP_TIMEOUT_SEC = 120.0


def _scores(card: Scorecard | None) -> list[tuple[str, float, float]] | None:
    return None if card is None else [(s.name, s.score, s.weight) for s in card.subtasks]


@attrs.frozen
class Regrade:
    """The recorded final pass of an episode and its re-gradings, one per seed.

    ``passes`` are the re-computed results: what the verifier sandbox graded,
    with the scores of the ``carried`` subtasks (declared ``live``: they graded
    the agent's running services, which a re-grade does not have) taken from
    the episode's record on the recorded seed, and the reward re-computed with
    them. ``graded`` are the passes exactly as the sandboxes graded them.
    """

    episode: Episode
    passes: tuple[VerifierPass, ...]
    carried: tuple[str, ...] = ()
    graded: tuple[VerifierPass, ...] = attrs.field(
        default=attrs.Factory(lambda self: self.passes, takes_self=True)
    )

    @property
    def recorded_seed(self) -> int | None:
        """The seed the episode was graded with."""
        return self.episode.config.seed

    def reproduced(self) -> bool:
        """Every re-grading on the recorded seed gave exactly the recorded reward, and
        the same score for every subtask the re-grade graded."""
        same = [p for p in self.passes if p.seed == self.recorded_seed]
        recorded = _scores(self.episode.scorecard)
        return bool(same) and all(
            p.reward == self.episode.reward
            and (recorded is None or _scores(p.scorecard) == recorded)
            for p in same
        )

    def spread(self) -> Spread | None:
        """Mean, min and max reward over the re-gradings (``None`` if none gave a reward)."""
        rewards = [p.reward for p in self.passes if p.reward is not None]
        return Spread.of(rewards) if rewards else None


@attrs.frozen
class Spread:
    """How a reward varies over seeds."""

    n: int
    mean: float
    min: float
    max: float

    @classmethod
    def of(cls, rewards: Sequence[float]) -> Spread:
        """The spread of ``rewards`` (at least one)."""
        return cls(len(rewards), statistics.fmean(rewards), min(rewards), max(rewards))

    def __str__(self) -> str:
        return f"mean {self.mean:.3f}, min {self.min:.3f}, max {self.max:.3f} over {self.n} seeds"


def other_seeds(seed: int, count: int) -> list[int]:
    """``count`` seeds: ``seed`` first, then ones derived from it (stable for a given seed)."""
    return [seed] + [derive_seed(seed, "lhtb-verify", i) for i in range(1, count)]


def read_episode(directory: Path) -> Episode:
    """The episode record in ``directory``, which must carry a grading seed.

    Raises:
        EpisodeFormatError: ``episode.json`` is unreadable.
        LhtbError: there is no ``episode.json``, or it records no seed.
    """
    record = directory / "episode.json"
    if not record.is_file():
        raise LhtbError(
            "no episode.json here", where=str(directory), fix="give an episode directory"
        )
    episode = Episode.load(record)
    if episode.config.seed is None:
        raise LhtbError(
            "the episode records no grading seed (written by an older lhtb)",
            where=str(record),
            fix="re-run the episode to get a record that can be re-graded",
        )
    return episode


def _task_for(episode: Episode, episode_dir: Path, task: Task | str | Path | None) -> Task:
    if isinstance(task, Task):
        loaded = task
    else:
        path = task if task is not None else episode.config.task_path
        if path is None:
            raise LhtbError(
                "the episode does not record its task directory",
                where=str(episode_dir),
                fix="give the task directory (lhtb verify --task DIR)",
            )
        loaded = load_task(Path(path))
    if loaded.checksum != episode.config.task_checksum:
        raise LhtbError(
            f"task {loaded.name!r} changed since the episode ran (checksum "
            f"{loaded.checksum[:16]} now, {episode.config.task_checksum[:16]} then), "
            "so a re-grade would not reproduce the recorded reward",
            where=str(loaded.path or loaded.name),
            fix="check out the task version the episode ran, and give it with --task",
        )
    return loaded


def _live_subtasks(episode: Episode, task: Task) -> dict[str, Subtask]:
    """The recorded scores of ``task``'s ``live`` subtasks in ``episode``'s final pass
    (none when the episode was not verified live)."""
    card = episode.scorecard
    if card is None or not episode.config.live_verification:
        return {}
    live = {spec.name for spec in task.verifier.subtasks if spec.live}
    return {s.name: s for s in card.subtasks if s.name in live}


def _with_recorded(graded: VerifierPass, recorded: Mapping[str, Subtask]) -> VerifierPass:
    """``graded`` with the ``recorded`` subtasks in place of its own, the reward re-computed."""
    card = graded.scorecard
    if card is None or not recorded:
        return graded
    combined = Scorecard.from_subtasks(
        (recorded.get(s.name, s) for s in card.subtasks), source=card.source
    )
    return attrs.evolve(graded, scorecard=combined, reward=combined.reward)


async def regrade(
    episode_dir: str | Path,
    *,
    seeds: Sequence[int] | None = None,
    task: Task | str | Path | None = None,
    backend: SandboxBackend | str | None = None,
) -> Regrade:
    """Grade an episode's kept final inputs again, once per seed (default: the recorded one).

    ``task`` defaults to the directory the episode recorded; it must have the
    recorded checksum. ``backend`` defaults to the one the episode ran on.
    Each re-grading is kept under ``verifier/regrade-*`` in the episode directory.
    The task's ``live`` subtasks are taken from the record (see :class:`Regrade`).

    Raises:
        EpisodeFormatError: ``episode.json`` is missing or unreadable.
        LhtbError: the episode kept no final inputs (it says why) or no seed,
            the task cannot be found or changed, or a seed is invalid.
        SandboxError: the verifier sandbox failed.
    """
    directory = Path(episode_dir)
    episode = read_episode(directory)
    kept = episode.final_inputs
    if kept is None or kept.path is None:
        why = kept.note if kept is not None and kept.note else "its final pass kept no inputs"
        raise LhtbError(
            f"the episode cannot be re-graded: {why}",
            where=str(directory),
            fix="re-run the episode with a lhtb that keeps final inputs (raise keep_inputs_bytes "
            "if they were over the cap)",
        )
    assert episode.config.seed is not None
    chosen = [check_seed(s) for s in seeds] if seeds is not None else [episode.config.seed]
    graded = _task_for(episode, directory, task)
    archives = kept_archives(directory, kept)
    sandbox_backend = resolve_backend(backend or episode.config.backend or None)
    run_id = f"verify-{uuid.uuid4().hex[:10]}"
    passes = []
    try:
        image = await sandbox_backend.prepare(graded)
        verifier_image = await prepare_verifier_image(sandbox_backend, graded)
        for seed in chosen:
            verifier = Verifier(
                graded,
                sandbox_backend,
                seed=seed,
                run_id=run_id,
                output_dir=directory,
                image=image,
                verifier_image=verifier_image,
                live=False,  # a fresh sandbox of kept files: no agent processes to leave running
            )
            name = f"regrade-{uuid.uuid4().hex[:6]}-seed-{seed}"
            passes.append(await verifier.regrade(archives, name))
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLEANUP_TIMEOUT_SEC):
            await sandbox_backend.cleanup(run_id)
    recorded = _live_subtasks(episode, graded)
    return Regrade(
        episode=episode,
        passes=tuple(_with_recorded(p, recorded) for p in passes),
        carried=tuple(recorded),
        graded=tuple(passes),
    )
