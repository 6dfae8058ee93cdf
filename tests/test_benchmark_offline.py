"""run_benchmark without Docker: retries with backoff, setup failures, progress lines."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import lhtb
from lhtb.episode._progress import LogProgress
from lhtb.errors import LhtbError, SandboxError, SetupError
from lhtb.sandbox.base import ManagedSandbox, SandboxBackend, SandboxSpec

pytestmark = pytest.mark.anyio


class DownBackend(SandboxBackend):
    """A backend whose daemon never answers; counts what it was asked."""

    name = "down"

    def __init__(self) -> None:
        self.prepared = 0
        self.cleaned: list[str | None] = []

    async def prepare(self, task: lhtb.Task) -> str:
        self.prepared += 1
        raise SandboxError("the daemon did not answer", fix="start it")

    async def start(self, spec: SandboxSpec) -> ManagedSandbox:
        raise AssertionError("never reached")

    async def cleanup(self, run_id: str | None = None) -> int:
        self.cleaned.append(run_id)
        return 0


def task(name: str = "t/one") -> lhtb.Task:
    return lhtb.Task(name=name, instruction="x", agent=lhtb.AgentConfig(timeout_sec=30))


async def test_infra_errors_are_retried_with_backoff_then_recorded(tmp_path: Path) -> None:
    backend = DownBackend()
    stream = io.StringIO()
    result = await lhtb.run_benchmark(
        [task()],
        "nop",
        output_dir=tmp_path,
        backend=backend,
        retries=2,
        backoff=lhtb.Backoff(initial_sec=0.01, factor=2, max_sec=0.02),
        stagger_sec=0,
        progress=LogProgress(stream),
    )
    assert backend.prepared == 3
    assert result.tries == 3
    [episode] = result.episodes
    assert episode.outcome is lhtb.Outcome.INFRA_ERROR
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [
        "t-one__nop__1",
        "t-one__nop__1__retry1",
        "t-one__nop__1__retry2",
    ]
    assert backend.cleaned == [result.run_id]  # the shielded cleanup at the end
    log = stream.getvalue()
    assert log.count("retry_in=") == 2
    assert "run_finished" in log
    assert "1 failed" in log
    assert result.leaderboard().rows[0].mean_reward == 0.0  # errors count 0

    # A resume retries the slot again (its last try is an infra error), as a new try.
    again = await lhtb.run_benchmark(
        [task()], "nop", output_dir=tmp_path, backend=backend, retries=0, stagger_sec=0
    )
    assert again.tries == 1
    assert (tmp_path / "t-one__nop__1__retry3" / "episode.json").is_file()
    assert backend.cleaned[-2:] == [result.run_id, result.run_id]  # leftovers, then the end


async def test_an_agent_that_cannot_load_is_an_agent_error_not_retried(tmp_path: Path) -> None:
    result = await lhtb.run_benchmark(
        [task()], "oracle", output_dir=tmp_path, backend=DownBackend(), stagger_sec=0
    )
    [episode] = result.episodes
    assert episode.outcome is lhtb.Outcome.AGENT_ERROR
    assert episode.error is not None
    assert "no solution/solve.sh" in episode.error
    assert result.tries == 1
    saved = lhtb.Episode.load(tmp_path / "t-one__oracle__1" / "episode.json")
    assert saved == episode


async def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(LhtbError, match="attempts"):
        await lhtb.run_benchmark([task()], "nop", output_dir=tmp_path, attempts=0)
    with pytest.raises(LhtbError, match="share the directory name"):
        await lhtb.run_benchmark([task(), task()], "nop", output_dir=tmp_path)
    with pytest.raises(LhtbError, match="share the directory name"):
        await lhtb.run_benchmark([task()], {"a/b": "nop", "a:b": "nop"}, output_dir=tmp_path)
    with pytest.raises(LhtbError, match="no tasks"):
        await lhtb.run_benchmark([], "nop", output_dir=tmp_path)


async def test_an_unknown_agent_spec_fails_before_the_run_starts(tmp_path: Path) -> None:
    with pytest.raises(lhtb.errors.AgentLoadError, match="cannot import module"):
        await lhtb.run_benchmark(
            [task()], ["nop", "no_such_pkg:Agent"], output_dir=tmp_path / "run"
        )
    assert not (tmp_path / "run").exists()


class FailingBackend(DownBackend):
    """A backend whose ``prepare`` raises the given exception."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    async def prepare(self, task: lhtb.Task) -> str:
        self.prepared += 1
        raise self.error


async def run_failing(tmp_path: Path, error: Exception) -> tuple[FailingBackend, lhtb.Episode]:
    backend = FailingBackend(error)
    result = await lhtb.run_benchmark(
        [task()],
        "nop",
        output_dir=tmp_path,
        backend=backend,
        retries=2,
        backoff=lhtb.Backoff(initial_sec=0.01, factor=1, max_sec=0.01),
        stagger_sec=0,
    )
    [episode] = result.episodes
    assert result.tries == backend.prepared
    return backend, episode


async def test_a_bug_in_lhtb_is_a_harness_error_with_its_traceback(tmp_path: Path) -> None:
    backend, episode = await run_failing(tmp_path, KeyError("image_id"))
    assert backend.prepared == 1  # not retried
    assert episode.outcome is lhtb.Outcome.HARNESS_ERROR
    traceback_file = tmp_path / "t-one__nop__1" / "traceback.txt"
    assert "raise self.error" in traceback_file.read_text()
    assert episode.error is not None
    assert "internal error in lhtb" in episode.error
    assert str(traceback_file) in episode.error
    assert episode.error_detail is not None
    assert episode.error_detail.startswith("KeyError: 'image_id'")


async def test_a_setup_error_is_not_retried(tmp_path: Path) -> None:
    error = SetupError(
        "base image python:3.11-slim is missing", fix="load it", detail="ImageNotFound: 404"
    )
    backend, episode = await run_failing(tmp_path, error)
    assert backend.prepared == 1
    assert (episode.outcome, episode.can_retry) == (lhtb.Outcome.INFRA_ERROR, False)
    assert episode.error == "base image python:3.11-slim is missing. load it"
    assert episode.error_detail == "ImageNotFound: 404"
    flagged = SandboxError("compose file refers to an unknown service", retryable=False)
    backend, episode = await run_failing(tmp_path / "flagged", flagged)
    assert backend.prepared == 1
    assert not episode.retryable


async def test_a_daemon_failure_is_retried_with_a_message_for_people(tmp_path: Path) -> None:
    backend, episode = await run_failing(tmp_path, ConnectionRefusedError(111, "refused"))
    assert backend.prepared == 3
    assert episode.outcome is lhtb.Outcome.INFRA_ERROR
    assert episode.error == "the sandbox backend failed: [Errno 111] refused"
    assert episode.error_detail == "ConnectionRefusedError: [Errno 111] refused"
