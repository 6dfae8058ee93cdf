"""Episode records built by hand, for leaderboard and report tests (no Docker)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from lhtb.agents import Usage
from lhtb.episode import (
    Episode,
    EpisodeConfig,
    FeedbackMode,
    Outcome,
    PassOutcome,
    Timings,
    VerifierPass,
)
from lhtb.task import ContinueMode, IsolationMode, Tier, Visibility
from lhtb.verify import Scorecard, Subtask

START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
CATEGORY = {"t1": "systems", "t2": "systems", "t3": "science"}


def card(public: float, hidden: float, hidden_weight: float = 1.0) -> Scorecard:
    return Scorecard.from_subtasks(
        [
            Subtask("visible", public, 1.0, Visibility.PUBLIC),
            Subtask("stress", hidden, hidden_weight, Visibility.HIDDEN),
        ]
    )


def make(
    task: str,
    agent: str,
    reward: float | None,
    *,
    attempt: int = 1,
    model: str | None = "m1",
    outcome: Outcome | None = None,
    cost: float | None = 0.5,
    tokens: int = 1000,
    seconds: float = 60.0,
    scorecard: Scorecard | None = None,
    feedback: FeedbackMode = FeedbackMode.BINARY,
    budget: float = 600.0,
    started: datetime = START,
    task_path: Path | None = None,
    tier: Tier | None = None,
) -> Episode:
    if outcome is None:
        outcome = Outcome.SOLVED if reward is not None and reward >= 0.95 else Outcome.UNSOLVED
    passes: tuple[VerifierPass, ...] = ()
    if reward is not None:
        passes = (
            VerifierPass(
                number=1,
                started_at=started,
                duration_sec=1.0,
                outcome=PassOutcome.PASSED if reward >= 0.95 else PassOutcome.FAILED,
                reward=reward,
                scorecard=scorecard or Scorecard(reward=reward),
                final=True,
            ),
        )
    return Episode(
        id=f"{task}-{agent}-{attempt}",
        config=EpisodeConfig(
            task_name=task,
            task_checksum="sha",
            agent=agent,
            budget_sec=budget,
            task_budget_sec=600.0,
            continue_until_timeout=True,
            continue_mode=ContinueMode.SAME_CONVERSATION,
            feedback=feedback,
            isolation=IsolationMode.SEPARATE,
            pass_threshold=0.95,
            model=model,
            category=CATEGORY.get(task),
            task_path=None if task_path is None else str(task_path),
            tier=tier,
        ),
        outcome=outcome,
        started_at=started,
        reward=reward,
        passes=passes,
        ended_at=started + timedelta(seconds=seconds),
        timings=Timings(total_sec=seconds),
        usage=Usage(
            calls=1,
            prompt_tokens=tokens // 2,
            completion_tokens=tokens - tokens // 2,
            cost_usd=cost,
        ),
        attempt=attempt,
    )


def fixture() -> list[Episode]:
    t3_card = card(1.0, 14 / 15, hidden_weight=3.0)  # R = (1 + 3 * 14/15) / 4 = 0.95
    return [
        # agent A / m1: 3 tasks x 2 attempts
        make("t1", "A", 1.0, scorecard=card(1.0, 1.0), seconds=30, tokens=1000, cost=0.1),
        make("t1", "A", 0.96, attempt=2, seconds=90, tokens=3000, cost=0.3),
        make("t2", "A", 0.5, seconds=60, tokens=2000, cost=0.2),
        make(
            "t2",
            "A",
            None,
            attempt=2,
            outcome=Outcome.VERIFIER_ERROR,
            seconds=120,
            tokens=4000,
            cost=0.4,
        ),
        make("t3", "A", t3_card.reward, scorecard=t3_card, seconds=60, tokens=2000, cost=0.2),
        make("t3", "A", 0.2, attempt=2, seconds=0, tokens=0, cost=0.0),
        # agent B / no model: 3 tasks x 1 attempt, one infra error, one unknown cost
        make("t1", "B", 0.3, model=None, cost=None),
        make("t2", "B", 1.0, model=None),
        make("t3", "B", None, model=None, outcome=Outcome.INFRA_ERROR),
        # not comparable: diagnostic feedback, changed budget
        make("t1", "A", 1.0, feedback=FeedbackMode.DIAGNOSTIC),
        make("t2", "A", 0.7, budget=60.0),
    ]
