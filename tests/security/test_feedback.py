"""Feedback modes: ``binary`` says nothing the verifier found; ``diagnostic`` adds the
public subtasks only, and marks the episode not comparable."""

from __future__ import annotations

from pathlib import Path

import pytest

import lhtb
from lhtb.episode import FeedbackMode
from lhtb.episode._feedback import rejection_message
from lhtb.episode._runner import FEEDBACK_ENV, resolve_feedback
from lhtb.errors import LhtbError
from lhtb.sandbox.base import SandboxBackend
from lhtb.task import Visibility
from lhtb.verify import Scorecard, Subtask

from ._attack import SECRET, AttackAgent

pytestmark = [pytest.mark.anyio]


def card(public: float, hidden: float, message: str = "") -> Scorecard:
    return Scorecard.from_subtasks(
        [
            Subtask(name="cli_contract", score=public, visibility=Visibility.PUBLIC),
            Subtask(
                name=f"hidden_{SECRET}",
                score=hidden,
                weight=3,
                visibility=Visibility.HIDDEN,
                message=message,
            ),
        ]
    )


FAILING = [None, card(0, 0), card(1, 0.5, f"expected {SECRET}"), card(0.25, 0.9)]


def test_binary_sentence_is_identical_across_failing_states() -> None:
    texts = {
        rejection_message(FeedbackMode.BINARY, number=3, remaining_sec=1200, scorecard=c)
        for c in FAILING
    }
    assert len(texts) == 1
    (text,) = texts
    assert "pass 3" in text
    assert "20 minute" in text
    for leak in (SECRET, "cli_contract", "0.5", "0.25", "0.9"):
        assert leak not in text


def test_diagnostic_adds_public_subtasks_only() -> None:
    text = rejection_message(
        FeedbackMode.DIAGNOSTIC, number=1, remaining_sec=60, scorecard=card(0.25, 0.9, SECRET)
    )
    assert "cli_contract: 0.25" in text
    assert SECRET not in text
    assert "0.90" not in text


def test_feedback_mode_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FEEDBACK_ENV, raising=False)
    assert resolve_feedback(None) is FeedbackMode.BINARY
    monkeypatch.setenv(FEEDBACK_ENV, "diagnostic")
    assert resolve_feedback(None) is FeedbackMode.DIAGNOSTIC
    assert resolve_feedback("binary") is FeedbackMode.BINARY  # the argument wins
    monkeypatch.setenv(FEEDBACK_ENV, "verbose")
    with pytest.raises(LhtbError, match="LHTB_VERIFIER_FEEDBACK"):
        resolve_feedback(None)


class TwoStops(AttackAgent):
    """Stops with ``first`` in place, then with ``42``."""

    def __init__(self, first: str | None) -> None:
        super().__init__()
        self.first = first

    async def run(self, turn: lhtb.Turn) -> None:
        self.feedback.append(turn.feedback)
        answer = self.first if turn.number == 1 else "42"
        if answer is not None:
            await turn.sandbox.write_file("/app/answer.txt", answer + "\n")


async def test_binary_feedback_end_to_end(
    backend: SandboxBackend,
    attack_task: lhtb.Task,
    tmp_path: Path,
    run_id: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two episodes failing differently (0.0 and 0.25) get the same sentence; the env
    variable switches the library to diagnostic, which is not comparable."""
    monkeypatch.delenv(FEEDBACK_ENV, raising=False)
    agents = {first: TwoStops(first) for first in (None, "41")}
    for first, agent in agents.items():
        episode = await lhtb.run_episode(
            attack_task,
            agent,
            backend=backend,
            run_id=run_id,
            budget=3000,
            output_dir=tmp_path / str(first),
        )
        assert [p.reward for p in episode.passes] == [0.0 if first is None else 0.25, 1.0]
        assert episode.config.feedback is FeedbackMode.BINARY
    sentences = {agent.feedback[1] for agent in agents.values()}
    assert len(sentences) == 1
    monkeypatch.setenv(FEEDBACK_ENV, "diagnostic")
    agent = TwoStops("41")
    episode = await lhtb.run_episode(
        attack_task,
        agent,
        backend=backend,
        run_id=run_id,
        output_dir=tmp_path / "diag",
    )
    assert episode.config.feedback is FeedbackMode.DIAGNOSTIC
    assert not episode.config.comparable
    assert episode.to_dict()["config"]["comparable"] is False
    assert "answer_present: 1.00" in (agent.feedback[1] or "")
    assert "answer_correct" not in (agent.feedback[1] or "")
