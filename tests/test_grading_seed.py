"""One grading seed per episode: a flawed but sometimes lucky submission cannot re-roll.

The fixture task's reward depends only on ``$LHTB_SEED`` (and on a submission
existing): 0.97 on even seeds, 0.93 on odd ones, like a solution that clears
the 0.95 threshold on some hidden cases and not on others. An agent submits
once and then stops again and again: with one seed per episode every pass
grades the same cases, so on an odd seed it is never solved, on Docker and on
the local backend, in every isolation mode.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

import lhtb
from lhtb.analysis import regrade
from lhtb.bench._manifest import open_manifest
from lhtb.cli import main
from lhtb.errors import BackendUnavailableError, LhtbError
from lhtb.gates import check_tasks
from lhtb.gates._weak_record import read_records
from lhtb.sandbox.base import SandboxBackend
from lhtb.verify._seeds import MAX_SEED, check_seed, derive_seed

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
UNLUCKY_SEED = 40_001
LUCKY_SEED = 40_002
PASSES = 4

TEST_SH = """#!/bin/sh
echo "$LHTB_SEED" > /logs/verifier/seed.txt
if [ ! -f /app/submission.txt ]; then echo 0 > /logs/verifier/reward.txt; exit 0; fi
if [ $(( LHTB_SEED % 2 )) -eq 0 ]; then echo 0.97; else echo 0.93; fi > /logs/verifier/reward.txt
"""


def write_task(root: Path, isolation: str) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nRUN mkdir -p /app\nWORKDIR /app\n"
    )
    (root / "tests").mkdir()
    (root / "tests" / "test.sh").write_text(TEST_SH)
    (root / "instruction.md").write_text("Write /app/submission.txt.\n")
    artifacts = 'artifacts = ["/app"]\n' if isolation == "separate" else ""
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            schema_version = "1.1"
            {artifacts}
            [environment]
            allow_internet = false

            [agent]
            timeout_sec = 600
            continue_until_timeout = true

            [verifier]
            isolation = "{isolation}"
            timeout_sec = 60
            max_passes = {PASSES}
            """
        )
    )
    return lhtb.load_task(root)


class SubmitOnceThenStop:
    """Installs the flawed submission on the first turn; every later turn just stops."""

    name = "submit-once"

    async def run(self, turn: lhtb.Turn) -> None:
        if turn.number == 1:
            await turn.sandbox.write_file("/app/submission.txt", b"flawed\n")


@pytest.fixture(params=["docker", "local"])
def backend(request: pytest.FixtureRequest) -> SandboxBackend:
    if request.param == "docker":
        request.getfixturevalue("docker_client")  # skips, or fails under CI, without Docker
        from lhtb.sandbox.docker import DockerBackend

        return DockerBackend()
    from lhtb.sandbox.local import LocalBackend, check_host

    try:
        check_host()
    except BackendUnavailableError as error:
        if IN_CI:
            pytest.fail(f"the local backend cannot run here, and CI=true: {error}")
        pytest.skip(str(error))
    return LocalBackend()


def pass_seeds(directory: Path, episode: lhtb.Episode) -> list[str]:
    return [(directory / str(p.log_dir) / "seed.txt").read_text().strip() for p in episode.passes]


@pytest.mark.parametrize("isolation", ["separate", "snapshot", "shared"])
@pytest.mark.anyio
async def test_stopping_again_never_re_rolls_an_unlucky_seed(
    backend: SandboxBackend, tmp_path: Path, isolation: str
) -> None:
    task = write_task(tmp_path / "task", isolation)
    # The setup can be solved: on a lucky seed the first pass already clears the threshold.
    lucky = await lhtb.run_episode(
        task, SubmitOnceThenStop(), backend=backend, seed=LUCKY_SEED, output_dir=tmp_path / "l"
    )
    assert (lucky.outcome, lucky.reward, len(lucky.passes)) == (lhtb.Outcome.SOLVED, 0.97, 1)

    directory = tmp_path / "unlucky"
    episode = await lhtb.run_episode(
        task, SubmitOnceThenStop(), backend=backend, seed=UNLUCKY_SEED, output_dir=directory
    )
    assert episode.outcome is lhtb.Outcome.UNSOLVED, episode.error
    assert not episode.solved
    assert len(episode.passes) == PASSES, "the agent stopped until max_passes"
    assert [p.reward for p in episode.passes] == [0.93] * PASSES
    assert episode.best_reward == episode.reward == 0.93
    assert pass_seeds(directory, episode) == [str(UNLUCKY_SEED)] * PASSES
    recorded = lhtb.Episode.load(directory / "episode.json")
    assert recorded.config.seed == UNLUCKY_SEED


@pytest.mark.anyio
async def test_an_episode_without_a_seed_draws_and_records_one(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    task = write_task(tmp_path / "task", "separate")
    directory = tmp_path / "ep"
    episode = await lhtb.run_episode(
        task, SubmitOnceThenStop(), backend=backend, max_passes=2, output_dir=directory
    )
    seed = episode.config.seed
    assert seed is not None
    assert lhtb.Episode.load(directory / "episode.json").config.seed == seed
    assert set(pass_seeds(directory, episode)) == {str(seed)}
    assert episode.reward == (0.97 if seed % 2 == 0 else 0.93)


@pytest.mark.anyio
async def test_benchmark_seeds_derive_from_the_run_seed_task_and_attempt(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    task = write_task(tmp_path / "task", "separate")
    result = await lhtb.run_benchmark(
        [task],
        SubmitOnceThenStop,
        output_dir=tmp_path / "run",
        backend=backend,
        attempts=2,
        seed=7,
        max_passes=1,
        stagger_sec=0,
    )
    seeds = [e.config.seed for e in result.episodes]
    assert seeds == [derive_seed(7, task.checksum, attempt) for attempt in (1, 2)]
    assert seeds[0] != seeds[1], "attempts draw different hidden cases"
    again = await lhtb.run_benchmark(
        [task],
        SubmitOnceThenStop,
        output_dir=tmp_path / "again",
        backend=backend,
        attempts=2,
        seed=7,
        max_passes=1,
        stagger_sec=0,
    )
    assert [e.config.seed for e in again.episodes] == seeds


# -- without a sandbox ---------------------------------------------------------------------------


def test_derived_seeds_are_stable_and_in_range() -> None:
    assert derive_seed(1, "abc", 1) == derive_seed(1, "abc", 1)
    values = {
        derive_seed(run, checksum, attempt)
        for run in (0, 1)
        for checksum in ("a", "b")
        for attempt in (1, 2)
    }
    assert len(values) == 8
    assert all(0 <= v <= MAX_SEED for v in values)


@pytest.mark.parametrize("bad", [-1, 2**32, 1.5, True, "3"])
def test_bad_seeds_are_refused_with_a_typed_error(bad: object, tmp_path: Path) -> None:
    with pytest.raises(LhtbError, match="seed must be an integer"):
        check_seed(bad)


def test_a_random_run_seed_is_kept_for_the_resume(tmp_path: Path) -> None:
    first = open_manifest(tmp_path, {"tasks": {}}, "run-a", seed=11)
    resumed = open_manifest(tmp_path, {"tasks": {}}, "run-b", seed=12)
    assert first["seed"] == resumed["seed"] == 11
    assert resumed["run_id"] == "run-a"


# -- re-grading the kept final state (lhtb verify) -------------------------------------------------


@pytest.mark.anyio
async def test_regrade_reproduces_the_recorded_reward_and_measures_luck(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    task = write_task(tmp_path / "task", "separate")
    directory = tmp_path / "ep"
    episode = await lhtb.run_episode(
        task,
        SubmitOnceThenStop(),
        backend=backend,
        seed=UNLUCKY_SEED,
        max_passes=2,
        output_dir=directory,
    )
    kept = episode.final_inputs
    assert kept is not None
    assert kept.path == "final-inputs"
    assert kept.size_bytes > 0
    same = await regrade(directory, backend=backend)
    assert same.reproduced()
    assert [p.reward for p in same.passes] == [0.93]
    luck = await regrade(directory, seeds=[UNLUCKY_SEED, LUCKY_SEED], backend=backend)
    assert [p.reward for p in luck.passes] == [0.93, 0.97]
    spread = luck.spread()
    assert spread is not None
    assert (spread.min, spread.max) == (0.93, 0.97)


@pytest.mark.anyio
async def test_lhtb_verify_prints_recorded_and_recomputed_side_by_side(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    task = write_task(tmp_path / "task", "separate")
    directory = tmp_path / "ep"
    await lhtb.run_episode(
        task, SubmitOnceThenStop(), backend=backend, seed=LUCKY_SEED, output_dir=directory
    )
    runner = CliRunner()
    same = await anyio.to_thread.run_sync(
        lambda: runner.invoke(main, ["verify", str(directory), "--backend", backend.name])
    )
    assert same.exit_code == 0, same.output
    assert f"recorded (seed {LUCKY_SEED})" in same.output
    assert f"re-graded (seed {LUCKY_SEED})" in same.output
    assert "reproduced: the recorded reward 0.9700" in same.output
    spread = await anyio.to_thread.run_sync(
        lambda: runner.invoke(
            main, ["verify", str(directory), "--seeds", "4", "--backend", backend.name]
        )
    )
    assert spread.exit_code == 0, spread.output
    assert "spread: mean" in spread.output
    assert "over 4 seeds" in spread.output


@pytest.mark.anyio
async def test_inputs_over_the_cap_are_not_kept_and_the_record_says_so(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    task = write_task(tmp_path / "task", "separate")
    directory = tmp_path / "ep"
    episode = await lhtb.run_episode(
        task,
        SubmitOnceThenStop(),
        backend=backend,
        seed=LUCKY_SEED,
        keep_inputs_bytes=100,
        output_dir=directory,
    )
    kept = episode.final_inputs
    assert kept is not None
    assert kept.path is None
    assert kept.size_bytes > 100
    assert kept.note is not None
    assert "over the 100-byte cap" in kept.note
    assert not (directory / "final-inputs").exists()
    with pytest.raises(LhtbError, match=r"cannot be re-graded: .*over the 100-byte cap"):
        await regrade(directory, backend=backend)
    result = await anyio.to_thread.run_sync(
        lambda: CliRunner().invoke(main, ["verify", str(directory)])
    )
    assert result.exit_code == 1
    assert "cannot be re-graded" in result.output


# -- the reproducibility gate of lhtb check --------------------------------------------------------

NOT_REPRODUCIBLE_SH = """#!/bin/sh
echo "0.$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')1" > /logs/verifier/reward.txt
"""


@pytest.mark.docker
@pytest.mark.anyio
async def test_check_gates_weak_solutions_on_reward_and_reproducibility(tmp_path: Path) -> None:
    steady, flaky = tmp_path / "tasks" / "steady", tmp_path / "tasks" / "flaky"
    write_task(steady, "separate")
    write_task(flaky, "separate")
    (flaky / "tests" / "test.sh").write_text(NOT_REPRODUCIBLE_SH)
    for root in (steady, flaky):
        (root / "solution").mkdir()
        (root / "solution" / "solve.sh").write_text("#!/bin/sh\necho ok > /app/submission.txt\n")
        weak = root / "tests" / "weak_solution_hardcoded" / "app"
        weak.mkdir(parents=True)
        (weak / "other.txt").write_text("not the submission\n")
        toml = root / "task.toml"
        toml.write_text(
            toml.read_text().replace("[agent]", f'[task]\nname = "t/{root.name}"\n[agent]')
        )
    record = tmp_path / "weak-gate.json"
    checks = await check_tasks(
        [lhtb.load_task(steady), lhtb.load_task(flaky)],
        output_dir=tmp_path / "check",
        stagger_sec=0.05,
        spread_seeds=2,
        record=record,
    )
    by_name = {c.task: c for c in checks}
    [weak] = by_name["t/steady"].weak
    assert weak.name == "weak_solution_hardcoded"
    assert weak.reward == 0.0
    assert weak.reproducible
    assert weak.spread is not None
    assert weak.spread.n == 2  # the episode's seed and one more
    assert weak.problems == ()  # (the fixture's oracle itself is lucky only on even seeds)
    [shaky] = by_name["t/flaky"].weak
    assert not shaky.reproducible
    assert any("not reproducible on its seed" in p for p in by_name["t/flaky"].problems)
    # only the passing weak gate is recorded; checked again unchanged, it is not re-run
    recorded = read_records(record)
    assert list(recorded) == ["t/steady"]
    assert [(w.name, w.seed, w.reward) for w in recorded["t/steady"].weak] == [
        (weak.name, weak.episode.config.seed if weak.episode else None, 0.0)
    ]
    [again] = await check_tasks(
        [lhtb.load_task(steady)], output_dir=tmp_path / "again", stagger_sec=0.05, record=record
    )
    assert again.recorded == recorded["t/steady"]
    assert again.weak == ()
    assert again.oracle is not None  # the oracle and nop gates still ran
    assert not (tmp_path / "again" / "weak").exists()
