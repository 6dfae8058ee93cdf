"""Multi-step episodes (Harbor ``[[steps]]``): the steps run in order in one sandbox.

For each step: copy ``steps/<name>/workdir/`` into the working directory and
run its ``setup.sh``; give the agent one turn on the step's instruction under
the step's budget; score it with one verifier pass on the task's ``tests/``
overlaid by the step's own. A step whose agent failed without a reward, or
whose reward is below its ``min_reward``, ends the episode (Harbor's abort
rule). The episode's reward is the steps' mean (over the steps that produced
a reward) or the last step's, as ``multi_step_reward_strategy`` says.
"""

from __future__ import annotations

import io
import posixpath
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import attrs

from lhtb.episode._record import Outcome, StepRecord, TurnEnd
from lhtb.errors import LhtbError
from lhtb.sandbox.archive import pack_directory
from lhtb.sandbox.base import ManagedSandbox
from lhtb.task._model import Step, StepReward, Task
from lhtb.verify._pass import PassOutcome, VerifierPass
from lhtb.verify._verifier import Verifier

if TYPE_CHECKING:
    from lhtb.episode._runner import _Runner

__all__ = ["run_steps", "step_reward"]

_SETUP_TIMEOUT_SEC = 600.0


async def run_steps(runner: _Runner, verifier: Verifier) -> None:
    """Run every step of ``runner.task``; record the steps, passes, reward and outcome."""
    task, state = runner.task, runner.state
    sandbox = runner.sandbox
    assert sandbox is not None
    assert state.config.budget_sec is not None
    end = TurnEnd.RETURNED
    last: VerifierPass | None = None
    for number, step in enumerate(task.steps, start=1):
        state.events.emit("step_started", step=step.name, number=number)
        failure = await _prepare(sandbox, task, step)
        if failure is not None:
            if number == 1:
                raise LhtbError(failure, where=f"task {task.name} step {step.name}")
            state.steps.append(StepRecord(name=step.name, error=failure))
            state.events.emit("step_setup_failed", step=step.name, error=failure)
            break
        runner.deadline = anyio.current_time() + (step.agent_timeout_sec or state.config.budget_sec)
        runner.solution_dir = step.solution_dir or task.solution_dir
        end = await runner._agent_turn(number, None, instruction=step.instruction)
        state.events.emit("verifier_pass_started", pass_no=number, step=step.name)
        with tempfile.TemporaryDirectory(prefix="lhtb-step-tests-") as scratch:
            step_verifier = attrs.evolve(verifier, task=_step_task(task, step, Path(scratch)))
            last = await step_verifier.run_pass(sandbox, number, final=number == len(task.steps))
        state.passes.append(last)
        state.events.emit(
            "verifier_pass_finished", pass_no=number, outcome=str(last.outcome), reward=last.reward
        )
        stop = _abort_reason(step, last, end)
        state.steps.append(
            StepRecord(
                name=step.name, turn=number, pass_number=number, reward=last.reward, error=stop
            )
        )
        state.events.emit("step_finished", step=step.name, reward=last.reward, stopped=stop)
        state.save()
        if stop is not None:
            break
    if last is not None:
        state.passes[-1] = attrs.evolve(last, final=True)
    state.step_reward = step_reward(task.step_reward, state.steps)
    state.outcome = _outcome(runner, last, end, state.step_reward)
    state.save()


def step_reward(rule: StepReward, steps: list[StepRecord]) -> float | None:
    """The episode's reward from its steps (Harbor: the mean over scored steps, or the last)."""
    if rule is StepReward.FINAL:
        return steps[-1].reward if steps else None
    scored = [step.reward for step in steps if step.reward is not None]
    return sum(scored) / len(scored) if scored else None


def _abort_reason(step: Step, result: VerifierPass, end: TurnEnd) -> str | None:
    if end is TurnEnd.ERROR and result.reward is None:
        return "the agent failed and the step produced no reward"
    if step.min_reward is not None and (result.reward is None or result.reward < step.min_reward):
        return f"reward {result.reward} is below the step's min_reward {step.min_reward:g}"
    return None


def _outcome(
    runner: _Runner, last: VerifierPass | None, end: TurnEnd, reward: float | None
) -> Outcome:
    if last is None:
        return Outcome.AGENT_ERROR
    if reward is not None:
        passed = reward >= runner.task.verifier.pass_threshold
        last = attrs.evolve(last, outcome=PassOutcome.PASSED if passed else PassOutcome.FAILED)
    return runner._outcome(last, end)


def _step_task(task: Task, step: Step, scratch: Path) -> Task:
    """``task`` as one step's verifier pass sees it: the step's tests, timeout, env and user."""
    tests = scratch / "tests"
    tests.mkdir()
    for source in (task.tests_dir, step.tests_dir):
        if source is not None and source.is_dir():
            shutil.copytree(source, tests, dirs_exist_ok=True, symlinks=True)
    verifier = attrs.evolve(
        task.verifier,
        timeout_sec=step.verifier_timeout_sec or task.verifier.timeout_sec,
        env={**task.verifier.env, **step.verifier_env},
        user=step.verifier_user if step.verifier_user is not None else task.verifier.user,
    )
    return attrs.evolve(task, tests_dir=tests, verifier=verifier)


async def _prepare(sandbox: ManagedSandbox, task: Task, step: Step) -> str | None:
    """Copy the step's ``workdir/`` in and run its ``setup.sh``; a reason when that failed."""
    if step.workdir_dir is None:
        return None
    user = task.agent.user
    found = await sandbox.exec(["pwd"], cwd=task.environment.workdir, user=user, timeout=60)
    workdir = found.stdout_text.strip() or "/"
    archive = _contents_only(pack_directory(step.workdir_dir, workdir), workdir)
    await sandbox.import_(archive, dest="/")
    if not (step.workdir_dir / "setup.sh").is_file():
        return None
    result = await sandbox.exec(
        ["bash", posixpath.join(workdir, "setup.sh")],
        cwd=workdir,
        user=user,
        timeout=_SETUP_TIMEOUT_SEC,
    )
    if result.ok:
        return None
    return f"step {step.name}: setup.sh exited {result.exit_code}: {result.stderr_text[-300:]}"


def _contents_only(archive: bytes, directory: str) -> bytes:
    """``archive`` without its entry for ``directory`` itself (whose owner and mode stay)."""
    top = directory.strip("/")
    out = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as reader,
        tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as writer,
    ):
        for info in reader:
            if info.name.strip("/") in {top, "."}:
                continue
            writer.addfile(info, reader.extractfile(info) if info.isreg() else None)
    return out.getvalue()
