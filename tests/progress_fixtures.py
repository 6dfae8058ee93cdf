"""A run directory whose episodes have progress over time: many passes, hidden checkpoints.

Records are built with lhtb's own types and written as a run writes them
(one ``episode.json`` per episode directory), for the report tests.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from lhtb.agents import Usage
from lhtb.episode import (
    Checkpoint,
    Episode,
    EpisodeConfig,
    FeedbackMode,
    Outcome,
    PassOutcome,
    Timings,
    TurnEnd,
    TurnRecord,
    VerifierPass,
)
from lhtb.episode._feedback import rejection_message
from lhtb.task import ContinueMode, IsolationMode, Visibility
from lhtb.verify import Scorecard, Subtask

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
BUDGET = 1860.0
"""31 minutes: 31 turns of 50 s, each followed by a 10 s verifier pass."""
TURNS = 31
CHECKPOINT_EVERY = 90.0
CHECKPOINTS = 20
FAILED_CHECKPOINT = 7
LONG_AGENT = "an-agent-with-a-remarkably-long-descriptive-name-v2.1-preview"
LONG_MODEL = "some-provider/a-very-long-model-identifier-2026-11-01"


def scores_at(seconds: float) -> Scorecard:
    """The climbing agent's state after ``seconds`` of its budget."""
    return Scorecard.from_subtasks(
        [
            Subtask("build", min(1.0, seconds / 600), 1.0, Visibility.PUBLIC),
            Subtask("unit-tests", min(1.0, seconds / 1200), 1.0, Visibility.PUBLIC),
            Subtask("hidden-stress", min(1.0, seconds / 3720), 2.0, Visibility.HIDDEN),
        ]
    )


def _config(
    task: str, agent: str, model: str | None, checkpoint_every: float | None = None
) -> EpisodeConfig:
    return EpisodeConfig(
        task_name=task,
        task_checksum="sha",
        agent=agent,
        budget_sec=BUDGET,
        task_budget_sec=BUDGET,
        continue_until_timeout=True,
        continue_mode=ContinueMode.SAME_CONVERSATION,
        feedback=FeedbackMode.BINARY,
        isolation=IsolationMode.SEPARATE,
        pass_threshold=0.95,
        model=model,
        checkpoint_interval_sec=checkpoint_every,
    )


def climbing_episode() -> Episode:
    """31 turns, 31 failed passes and 20 checkpoints (one failed, 2 skipped) on task t1."""
    turns, passes = [], []
    for k in range(1, TURNS + 1):
        turn_start = (k - 1) * 60.0
        feedback = (
            None
            if k == 1
            else rejection_message(
                FeedbackMode.BINARY, number=k - 1, remaining_sec=BUDGET - turn_start, scorecard=None
            )
        )
        turns.append(
            TurnRecord(
                number=k,
                started_at=START + timedelta(seconds=turn_start),
                duration_sec=50.0,
                end=TurnEnd.DEADLINE if k == TURNS else TurnEnd.RETURNED,
                feedback=feedback,
                usage=Usage(calls=1, prompt_tokens=900, completion_tokens=100, cost_usd=0.01),
            )
        )
        card = scores_at(turn_start + 50)
        passes.append(
            VerifierPass(
                number=k,
                started_at=START + timedelta(seconds=turn_start + 50),
                duration_sec=10.0,
                outcome=PassOutcome.FAILED,
                reward=card.reward,
                scorecard=card,
                final=k == TURNS,
                elapsed_sec=turn_start + 50,
            )
        )
    checkpoints = []
    for n in range(1, CHECKPOINTS + 1):
        at = n * CHECKPOINT_EVERY
        failed = n == FAILED_CHECKPOINT
        checkpoints.append(
            Checkpoint(
                number=n,
                started_at=START + timedelta(seconds=at),
                elapsed_sec=at,
                reward=None if failed else scores_at(at).reward,
                scorecard=None if failed else scores_at(at),
                capture_sec=0.012,
                grading_sec=8.0,
                error="checkpoint grading timed out" if failed else None,
            )
        )
    return Episode(
        id="climb",
        config=_config("t1", "A", "m1", CHECKPOINT_EVERY),
        outcome=Outcome.UNSOLVED,
        started_at=START,
        reward=passes[-1].reward,
        best_reward=passes[-1].reward,
        turns=tuple(turns),
        passes=tuple(passes),
        checkpoints=tuple(checkpoints),
        checkpoints_skipped=2,
        ended_at=START + timedelta(seconds=BUDGET),
        timings=Timings(total_sec=BUDGET),
        usage=Usage(calls=TURNS, prompt_tokens=900 * TURNS, completion_tokens=100 * TURNS),
    )


def quick_episode(
    task: str, agent: str, model: str | None, *, cost: float | None = 0.2, timed: bool = True
) -> Episode:
    """One turn of 120 s and one solved pass; ``timed=False`` is an older record."""
    card = Scorecard.from_subtasks([Subtask("answer", 1.0, 1.0, Visibility.PUBLIC)])
    return Episode(
        id=f"{task}-{agent}",
        config=_config(task, agent, model),
        outcome=Outcome.SOLVED,
        started_at=START,
        reward=1.0,
        best_reward=1.0,
        turns=(TurnRecord(1, START, 120.0, TurnEnd.RETURNED),),
        passes=(
            VerifierPass(
                number=1,
                started_at=START + timedelta(seconds=120),
                duration_sec=5.0,
                outcome=PassOutcome.PASSED,
                reward=1.0,
                scorecard=card,
                final=True,
                elapsed_sec=120.0 if timed else None,
            ),
        ),
        ended_at=START + timedelta(seconds=125),
        timings=Timings(total_sec=125.0),
        usage=Usage(calls=1, prompt_tokens=500, completion_tokens=500, cost_usd=cost),
    )


def progress_episodes() -> list[Episode]:
    """Agent A (t1 climbing, t2 quick), B (older records, t1 and t2), the long name (t1 only)."""
    return [
        climbing_episode(),
        quick_episode("t2", "A", "m1"),
        quick_episode("t1", "B", None, timed=False),
        quick_episode("t2", "B", None, timed=False),
        quick_episode("t1", LONG_AGENT, LONG_MODEL, cost=None),
    ]


def write_progress_run(root: Path) -> Path:
    """The episodes of :func:`progress_episodes` as a run directory under ``root``."""
    for i, episode in enumerate(progress_episodes()):
        directory = root / f"{episode.config.task_name}__{i}"
        directory.mkdir(parents=True)
        episode.save(directory / "episode.json")
    return root
