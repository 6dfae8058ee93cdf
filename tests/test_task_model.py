"""Inline Task construction and the cheap validators on the model."""

from __future__ import annotations

import attrs
import pytest

import lhtb
from lhtb.task import SubtaskSpec, VerifierConfig


def test_inline_task_has_loader_defaults() -> None:
    task = lhtb.Task(name="inline", instruction="Do it.")
    assert task.verifier.pass_threshold == 0.95
    assert task.verifier.isolation is lhtb.IsolationMode.SHARED
    assert task.path is None


@pytest.mark.parametrize("threshold", [0, -0.1, 1.01, True])
def test_pass_threshold_must_be_in_range(threshold: float) -> None:
    with pytest.raises(ValueError, match="pass_threshold"):
        VerifierConfig(pass_threshold=threshold)


def test_pass_threshold_of_one_is_allowed() -> None:
    assert VerifierConfig(pass_threshold=1).pass_threshold == 1


@pytest.mark.parametrize("passes", [0, -1, False])
def test_max_passes_must_be_positive(passes: int) -> None:
    with pytest.raises(ValueError, match="max_passes"):
        VerifierConfig(max_passes=passes)


@pytest.mark.parametrize("weight", [0, -1.5])
def test_subtask_weight_must_be_positive(weight: float) -> None:
    with pytest.raises(ValueError, match="weight"):
        SubtaskSpec(name="x", weight=weight)


def _task(**verifier: object) -> lhtb.Task:
    return lhtb.Task(name="t", instruction="Do it.", verifier=VerifierConfig(**verifier))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("verifier", "resumes", "live"),
    [
        ({}, False, True),  # Harbor: single-shot, tests in the agent's sandbox, nothing frozen
        ({}, True, False),  # continue-until-timeout keeps the freeze guarantee
        ({"isolation": lhtb.IsolationMode.SNAPSHOT}, False, False),
        ({"live": False}, False, False),
        ({"live": True}, False, True),
    ],
)
def test_live_verification_defaults(verifier: dict[str, object], resumes: bool, live: bool) -> None:
    assert lhtb.task.verifies_live(_task(**verifier), continue_until_timeout=resumes) is live


def test_a_continue_until_timeout_task_stays_frozen_when_run_single_shot() -> None:
    task = _task()
    lhtb_task = attrs.evolve(task, agent=lhtb.AgentConfig(continue_until_timeout=True))
    assert lhtb.task.verifies_live(task, continue_until_timeout=False)
    assert not lhtb.task.verifies_live(lhtb_task, continue_until_timeout=False)
