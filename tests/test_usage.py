"""Token and cost accounting: an unknown cost stays unknown, never becomes zero."""

from __future__ import annotations

import math

import pytest

from lhtb.agents import Usage, UsageRecorder


def test_empty_usage_costs_nothing() -> None:
    usage = Usage()
    assert usage.cost_usd == 0.0
    assert usage.calls == 0
    assert usage.total_tokens == 0


def test_addition_sums_every_count() -> None:
    total = Usage(1, 100, 20, 50, 0.5) + Usage(2, 10, 5, 1, 0.25)
    assert total == Usage(3, 110, 25, 51, 0.75)
    assert total.total_tokens == 135


@pytest.mark.parametrize(
    ("a", "b"),
    [(None, 0.5), (0.5, None), (None, None), (None, 0.0)],
)
def test_unknown_cost_is_contagious(a: float | None, b: float | None) -> None:
    assert (Usage(cost_usd=a) + Usage(cost_usd=b)).cost_usd is None


def test_recorder_totals_known_costs() -> None:
    recorder = UsageRecorder()
    recorder.record(prompt_tokens=100, completion_tokens=10, cost_usd=0.01, model="m1")
    recorder.record(prompt_tokens=50, cached_tokens=40, cost_usd=0.002, model="m2")
    recorder.record(completion_tokens=5, cost_usd=0, model="m1")
    assert recorder.total.calls == 3
    assert recorder.total.prompt_tokens == 150
    assert recorder.total.completion_tokens == 15
    assert recorder.total.cached_tokens == 40
    assert recorder.total.cost_usd == pytest.approx(0.012)
    assert recorder.models == {"m1", "m2"}


def test_recorder_call_without_a_price_makes_the_total_unknown() -> None:
    recorder = UsageRecorder()
    recorder.record(prompt_tokens=100, cost_usd=0.01)
    recorder.record(prompt_tokens=100)  # price unknown: the default
    recorder.record(prompt_tokens=100, cost_usd=0.01)
    assert recorder.total.cost_usd is None
    assert recorder.total.prompt_tokens == 300
    assert recorder.total.calls == 3


def test_a_free_call_is_not_an_unknown_one() -> None:
    recorder = UsageRecorder()
    recorder.record(prompt_tokens=1, cost_usd=0.0)
    assert recorder.total.cost_usd == 0.0


def test_recorder_ignores_empty_model_names() -> None:
    recorder = UsageRecorder()
    recorder.record(model=None)
    recorder.record(model="")
    assert recorder.models == set()
    assert recorder.total.calls == 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"prompt_tokens": -1}, "'prompt_tokens' must be >= 0: -1"),
        ({"completion_tokens": -5}, "'completion_tokens' must be >= 0: -5"),
        ({"cached_tokens": -1}, "'cached_tokens' must be >= 0"),
        ({"cost_usd": -0.01}, r"cost_usd must be None \(unknown\) or >= 0, got -0\.01"),
        ({"cost_usd": math.nan}, r"cost_usd must be None \(unknown\) or >= 0, got nan"),
        ({"cost_usd": math.inf}, r"cost_usd must be None \(unknown\) or >= 0, got inf"),
    ],
)
def test_recorder_refuses_nonsense_and_keeps_the_total(
    kwargs: dict[str, float], match: str
) -> None:
    recorder = UsageRecorder()
    recorder.record(prompt_tokens=7, cost_usd=0.5)
    with pytest.raises(ValueError, match=match):
        recorder.record(**kwargs)  # type: ignore[arg-type]
    assert recorder.total == Usage(1, 7, 0, 0, 0.5)


def test_usage_refuses_fractional_tokens() -> None:
    with pytest.raises(TypeError, match="'prompt_tokens' must be <class 'int'>"):
        Usage(prompt_tokens=1.5)  # type: ignore[arg-type]
