"""``run_episode``: the continue-until-timeout state machine.

PROVISION -> AGENT_TURN -> VERIFY -> (solved: DONE | rejected with time left:
AGENT_TURN with feedback | otherwise: DONE). With a checkpoint interval, hidden
checkpoints (:mod:`lhtb.episode._checkpoints`) grade the agent's state on schedule
during its turns, never during a pass. At the deadline the agent is
cancelled, its processes frozen, and a final verification decides. Teardown
always runs, shielded from cancellation. The record (``episode.json``) and the
event log (``events.jsonl``) are written as the episode goes.

Hardening against agents (see ``docs/security.md``):

* the agent coroutine runs as its own task; at the deadline it is cancelled,
  and one that ignores cancellation is abandoned after
  :data:`AGENT_CANCEL_GRACE_SEC` so the episode still ends on time;
* the agent's sandbox handle works only during its turns (a coroutine that
  outlives its turn cannot start commands while the verifier runs);
* ``min_pass_interval_sec`` spaces interim verifier passes, ``max_passes``
  caps them: stopping in a loop does not buy one bit per second;
* a sandbox that the agent broke (it killed the init) ends the episode as
  ``agent_error``, not as a retryable ``infra_error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import attrs

from lhtb._util.blocking import run_blocking
from lhtb.agents._forms import AgentRecipe, agent_model, normalise_agent
from lhtb.agents._protocol import Agent, AgentLike, Turn
from lhtb.agents._solution import stage_solution, uses_solution
from lhtb.agents._usage import UsageRecorder
from lhtb.episode._checkpoints import Checkpointer, checkpoint_interval
from lhtb.episode._events import EventLog
from lhtb.episode._failures import classify
from lhtb.episode._feedback import rejection_message
from lhtb.episode._multi_step import run_steps
from lhtb.episode._progress import EpisodeProgress, ProgressArg
from lhtb.episode._record import (
    Checkpoint,
    Episode,
    EpisodeConfig,
    FeedbackMode,
    Outcome,
    StepRecord,
    Timings,
    TurnEnd,
    TurnRecord,
)
from lhtb.episode._turn_gate import GatedSandbox
from lhtb.errors import AgentBuildError, LhtbError, SandboxError, SandboxUnavailableError
from lhtb.sandbox._task_sandbox import start_task_sandbox
from lhtb.sandbox.base import ManagedSandbox, SandboxBackend
from lhtb.sandbox.registry import resolve_backend
from lhtb.task._model import ContinueMode, IsolationMode, Task, verifies_live
from lhtb.verify._pass import PassOutcome, VerifierPass
from lhtb.verify._seeds import check_seed, random_seed
from lhtb.verify._verifier import DEFAULT_KEEP_INPUTS_BYTES, Verifier, prepare_verifier_image

__all__ = [
    "AGENT_CANCEL_GRACE_SEC",
    "FEEDBACK_ENV",
    "EventCallback",
    "resolve_feedback",
    "run_episode",
    "run_episode_sync",
]

AGENT_CANCEL_GRACE_SEC = 5.0
"""How long an agent may take to honour cancellation at the deadline before it is abandoned."""
FEEDBACK_ENV = "LHTB_VERIFIER_FEEDBACK"
"""Environment variable choosing the feedback mode when ``run_episode`` is not told."""

EventCallback = Callable[[str, dict[str, Any]], None]
_PASS_OUTCOME_TO_EPISODE = {
    PassOutcome.ERROR: Outcome.VERIFIER_ERROR,
    PassOutcome.TIMEOUT: Outcome.VERIFIER_TIMEOUT,
}


@attrs.define
class _Episode:
    """Mutable state of one running episode; frozen into an :class:`Episode` on save."""

    id: str
    config: EpisodeConfig
    directory: Path
    events: EventLog
    started_at: datetime = attrs.field(factory=lambda: datetime.now(UTC))
    clock: float = attrs.field(factory=time.monotonic)
    outcome: Outcome = Outcome.INFRA_ERROR
    turns: list[TurnRecord] = attrs.field(factory=list)
    passes: list[VerifierPass] = attrs.field(factory=list)
    error: str | None = None
    error_detail: str | None = None
    can_retry: bool = True
    ended_at: datetime | None = None
    total_sec: float | None = None
    provision_sec: float = 0.0
    teardown_sec: float = 0.0
    usage: UsageRecorder = attrs.field(factory=UsageRecorder)
    steps: list[StepRecord] = attrs.field(factory=list)
    step_reward: float | None = None
    """A multi-step episode's reward (the task's rule over its steps)."""
    checkpoints: list[Checkpoint] = attrs.field(factory=list)
    checkpoints_skipped: int = 0

    def record(self) -> Episode:
        rewards = [p.reward for p in self.passes if p.reward is not None]
        final = self.passes[-1] if self.passes and self.passes[-1].final else None
        reward = self.step_reward if self.steps else (final.reward if final else None)
        return Episode(
            id=self.id,
            config=self.config,
            outcome=self.outcome,
            started_at=self.started_at,
            reward=reward,
            best_reward=max(rewards) if rewards else None,
            turns=tuple(self.turns),
            passes=tuple(self.passes),
            error=self.error,
            ended_at=self.ended_at,
            timings=Timings(
                provision_sec=self.provision_sec,
                agent_sec=sum(t.duration_sec for t in self.turns),
                verifier_sec=sum(p.duration_sec for p in self.passes),
                teardown_sec=self.teardown_sec,
                total_sec=self.total_sec
                if self.total_sec is not None
                else time.monotonic() - self.clock,
            ),
            usage=self.usage.total,
            error_detail=self.error_detail,
            can_retry=self.can_retry,
            steps=tuple(self.steps),
            checkpoints=tuple(sorted(self.checkpoints, key=lambda c: c.number)),
            checkpoints_skipped=self.checkpoints_skipped,
        )

    def save(self) -> Episode:
        episode = self.record()
        episode.save(self.directory / "episode.json")
        return episode


async def run_episode(
    task: Task,
    agent: AgentLike,
    *,
    backend: SandboxBackend | str | None = None,
    budget: float | None = None,
    continue_until_timeout: bool | None = None,
    continue_mode: ContinueMode | str | None = None,
    feedback: FeedbackMode | str | None = None,
    max_passes: int | None = None,
    min_pass_interval_sec: float = 0.0,
    verifier_time_counts: bool = True,
    output_dir: str | Path | None = None,
    run_id: str | None = None,
    model: str | None = None,
    on_event: EventCallback | None = None,
    seed: int | None = None,
    progress: ProgressArg = None,
    keep_inputs_bytes: int = DEFAULT_KEEP_INPUTS_BYTES,
    checkpoint_interval_sec: float | None = None,
) -> Episode:
    """Run ``agent`` on ``task`` to the end and return the episode record.

    ``agent`` is an :class:`~lhtb.agents.Agent` instance, an agent class, a
    zero-argument factory, a ``task -> agent`` factory, or an ``async def
    agent(turn)`` function. In ``restart`` continue mode a fresh agent is made
    every turn, so an instance is refused there. The record names the agent
    by its ``name`` attribute and, unless ``model`` is given, records its
    ``model`` attribute. Unset settings come from the task. The record and the
    event log go to ``output_dir`` (default ``runs/<task>-<id>``).
    ``on_event(name, fields)`` sees every event as it is logged (for progress
    displays). ``progress`` shows the episode as it goes: ``"auto"`` (a live
    display on a terminal, plain lines in a notebook), ``"rich"``, ``"lines"``,
    ``"quiet"``, or a :class:`~lhtb.bench._benchmark.ProgressReporter`.

    ``feedback`` defaults to ``$LHTB_VERIFIER_FEEDBACK``, else ``binary``;
    ``diagnostic`` marks the episode not comparable. ``min_pass_interval_sec``
    is the least time between the end of one interim verifier pass and the
    start of the next (an agent stopping sooner waits, on its own budget).

    ``seed`` is the grading seed handed to every verifier pass as
    ``$LHTB_SEED`` (default: a random one); it is recorded in the episode so
    that ``lhtb verify`` can re-grade the final state with it. The final
    verification's inputs are kept in ``output_dir/final-inputs/`` up to
    ``keep_inputs_bytes`` (default 256 MiB; over it the record says so).

    ``checkpoint_interval_sec`` (default: the task's ``[verifier]`` setting,
    else none) grades the agent's state in secret every that many seconds of
    its budget while it works: the sandbox is frozen only to capture the state,
    which is graded in its own verifier sandbox in the background with the
    episode's seed. The agent is told nothing; ``episode.checkpoints`` records
    each one (see :mod:`lhtb.analysis._stamina` for the metrics they feed).

    Failures end the episode with an outcome rather than an exception: an agent
    that cannot be made or raises is ``agent_error``, a sandbox or daemon
    failure ``infra_error``, a bug in lhtb ``harness_error`` (its traceback in
    ``traceback.txt`` of the episode directory).

    Raises:
        AgentLoadError: ``agent`` is none of the accepted forms, its constructor
            needs arguments, or it is an instance in ``restart`` mode.
        LhtbError: bad settings (no budget, unknown feedback or backend, a
            checkpoint interval that is not positive or that the task cannot use).
    """
    _require_asyncio()
    if min_pass_interval_sec < 0 or keep_inputs_bytes < 0:
        raise LhtbError(
            "min_pass_interval_sec and keep_inputs_bytes must be >= 0, got "
            f"{min_pass_interval_sec} and {keep_inputs_bytes}"
        )
    sandbox_backend = resolve_backend(backend)
    mode = ContinueMode(continue_mode or task.agent.continue_mode)
    recipe = normalise_agent(agent, task, mode)
    budget_sec = budget if budget is not None else task.agent.timeout_sec
    step_budgets = [step.agent_timeout_sec for step in task.steps]
    if budget_sec is None and step_budgets and None not in step_budgets:
        budget_sec = max(b for b in step_budgets if b is not None)  # every step has its own
    if budget_sec is None or budget_sec <= 0:
        raise LhtbError(
            f"task {task.name!r} has no positive time budget",
            fix="set [agent].timeout_sec in task.toml or pass budget=...",
        )
    interval = checkpoint_interval(task, checkpoint_interval_sec)
    grading_seed = random_seed() if seed is None else check_seed(seed, where="run_episode(seed=)")
    episode_id = uuid.uuid4().hex[:12]
    directory = Path(output_dir or Path("runs") / f"{task.name.replace('/', '__')}-{episode_id}")
    directory.mkdir(parents=True, exist_ok=True)
    resumes = (
        task.agent.continue_until_timeout
        if continue_until_timeout is None
        else continue_until_timeout
    )
    if resumes and task.verifier.live and task.verifier.isolation is IsolationMode.SHARED:
        raise LhtbError(
            f"task {task.name!r} verifies live in the agent's sandbox, which a "
            "continue-until-timeout episode cannot do safely",
            fix="run it single-shot (continue_until_timeout=False), or drop [verifier].live",
        )
    config = EpisodeConfig(
        task_name=task.name,
        task_checksum=task.checksum,
        agent=recipe.name,
        budget_sec=budget_sec,
        task_budget_sec=task.agent.timeout_sec,
        continue_until_timeout=resumes,
        continue_mode=mode,
        feedback=resolve_feedback(feedback),
        isolation=task.verifier.isolation,
        pass_threshold=task.verifier.pass_threshold,
        max_passes=max_passes if max_passes is not None else task.verifier.max_passes,
        verifier_time_counts=verifier_time_counts,
        backend=sandbox_backend.name,
        model=model or recipe.model,
        category=task.category,
        tier=task.tier,
        seed=grading_seed,
        task_path=str(task.path.resolve()) if task.path is not None else None,
        live_verification=verifies_live(task, continue_until_timeout=resumes),
        checkpoint_interval_sec=interval,
    )
    shown = EpisodeProgress(progress, f"{task.name} / {config.agent}")

    def listener(event: str, fields: dict[str, Any]) -> None:
        shown.event(event, fields)
        if on_event is not None:
            on_event(event, fields)

    state = _Episode(
        id=episode_id,
        config=config,
        directory=directory,
        events=EventLog(directory / "events.jsonl", listener, episode=episode_id, task=task.name),
    )
    runner = _Runner(
        task,
        recipe,
        sandbox_backend,
        state,
        run_id or f"ep-{episode_id}",
        min_pass_interval_sec=min_pass_interval_sec,
        keep_inputs_bytes=keep_inputs_bytes,
    )
    shown.start()
    try:
        await runner.run()
    finally:
        state.events.close()
        shown.finish(state.record() if state.ended_at is not None else None)
    return state.record()


def run_episode_sync(task: Task, agent: AgentLike, **kwargs: object) -> Episode:
    """Blocking wrapper around :func:`run_episode`, for scripts and notebooks.

    Works inside a running event loop too (a Jupyter cell): the episode then
    runs on a worker thread with its own event loop, and the call returns its
    record. In a notebook, ``await lhtb.run_episode(...)`` works as well.
    """

    async def main() -> Episode:
        return await run_episode(task, agent, **kwargs)  # type: ignore[arg-type]

    return run_blocking(main)


def resolve_feedback(feedback: FeedbackMode | str | None) -> FeedbackMode:
    """The feedback mode: the argument, else ``$LHTB_VERIFIER_FEEDBACK``, else ``binary``.

    Raises:
        LhtbError: an unknown mode name.
    """
    value = feedback if feedback is not None else os.environ.get(FEEDBACK_ENV) or "binary"
    try:
        return FeedbackMode(str(value).strip().lower())
    except ValueError:
        choices = ", ".join(m.value for m in FeedbackMode)
        where = "feedback=" if feedback is not None else f"${FEEDBACK_ENV}"
        raise LhtbError(
            f"unknown feedback mode {value!r}", where=where, fix=f"use one of: {choices}"
        ) from None


def _require_asyncio() -> None:
    """Episodes run on asyncio: an agent ignoring cancellation is abandoned as an asyncio task."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise LhtbError(
            "run_episode needs the asyncio event loop",
            fix="run it under asyncio (anyio.run's default backend, or asyncio.run)",
        ) from None


def _consume(task: asyncio.Future[None]) -> None:
    """Retrieve an abandoned agent task's result so nothing is reported as unhandled."""
    if not task.cancelled():
        task.exception()


@attrs.define
class _Runner:
    task: Task
    recipe: AgentRecipe
    backend: SandboxBackend
    state: _Episode
    run_id: str
    min_pass_interval_sec: float = 0.0
    keep_inputs_bytes: int = DEFAULT_KEEP_INPUTS_BYTES
    deadline: float = 0.0
    sandbox: ManagedSandbox | None = None
    view: GatedSandbox | None = None
    last_pass_end: float | None = None
    agent: Agent | None = None
    next_agent: Agent | None = None
    last: Agent | None = None
    built: int = 0
    solution_dir: Path | None = None
    """What ``uses_solution`` agents get at ``/solution`` (the current step's, if it has one)."""
    checkpointer: Checkpointer | None = None

    def __attrs_post_init__(self) -> None:
        self.solution_dir = self.task.solution_dir

    async def run(self) -> None:
        state = self.state
        state.events.emit(
            "episode_started",
            config=state.config.task_name,
            run_id=self.run_id,
            seed=state.config.seed,
        )
        state.save()
        try:
            first = self._build()  # before the sandbox: an agent that cannot be made fails fast
            if state.config.continue_mode is ContinueMode.SAME_CONVERSATION:
                self.agent = first
            else:
                self.next_agent = first  # restart mode: the first turn's fresh agent
            verifier = await self._provision()
            await self._loop(verifier)
        except Exception as exc:
            failure = classify(exc, state.directory)
            state.outcome, state.error = failure.outcome, failure.message
            state.error_detail, state.can_retry = failure.detail, failure.can_retry
            state.events.emit(failure.event, error=failure.message, detail=failure.detail)
        except BaseException as exc:
            if isinstance(exc, anyio.get_cancelled_exc_class() | KeyboardInterrupt):
                state.outcome, state.error = Outcome.CANCELLED, "the run was cancelled"
                state.events.emit("episode_cancelled")
            raise
        finally:
            with anyio.CancelScope(shield=True):
                await self._teardown()
                state.ended_at = datetime.now(UTC)
                state.total_sec = time.monotonic() - state.clock
                episode = state.save()
                state.events.emit(
                    "episode_finished",
                    outcome=str(episode.outcome),
                    reward=episode.reward,
                    passes=len(episode.passes),
                    seconds=round(episode.timings.total_sec, 3),
                )

    def _build(self) -> Agent:
        """Make an agent; the first one made may name the agent and its model in the record.

        Raises:
            AgentBuildError: the agent could not be made, or a ``restart`` factory
                returned the agent it returned before.
        """
        agent = self.recipe.build()
        if agent is self.last and self.recipe.fresh:
            raise AgentBuildError(
                f"{self.recipe.source} returned the same agent object again, but "
                "continue_mode 'restart' needs a fresh agent every turn",
                fix="return a new agent from each call",
            )
        if self.built == 0:
            config = self.state.config
            if not self.recipe.name_given:  # the agent made names itself better than a lambda
                name = getattr(agent, "name", None)
                own = name if isinstance(name, str) and name else type(agent).__qualname__
                config = attrs.evolve(config, agent=own)
            if config.model is None and agent_model(agent):
                config = attrs.evolve(config, model=agent_model(agent))
            self.state.config = config
        self.built += 1
        self.last = agent
        return agent

    async def _provision(self) -> Verifier:
        clock = time.monotonic()
        self.state.events.emit("provision_started", backend=self.backend.name)
        image, self.sandbox = await start_task_sandbox(self.task, self.backend, self.run_id)
        verifier_image = await prepare_verifier_image(self.backend, self.task)
        self.view = GatedSandbox(self.sandbox.agent_view())
        self.state.provision_sec = time.monotonic() - clock
        self.state.events.emit(
            "provision_finished",
            sandbox=self.sandbox.id,
            seconds=round(self.state.provision_sec, 3),
        )
        assert self.state.config.seed is not None
        return Verifier(
            self.task,
            self.backend,
            seed=self.state.config.seed,
            run_id=self.run_id,
            output_dir=self.state.directory,
            image=image,
            keep_inputs_bytes=self.keep_inputs_bytes,
            verifier_image=verifier_image,
            live=self.state.config.live_verification,
        )

    async def _loop(self, verifier: Verifier) -> None:
        if self.task.steps:
            await run_steps(self, verifier)
            return
        budget = self.state.config.budget_sec
        assert budget is not None
        self.deadline = anyio.current_time() + budget
        async with self._checkpoints(verifier):
            await self._turns(verifier)

    async def _turns(self, verifier: Verifier) -> None:
        """Turns and passes until the episode's outcome is decided."""
        state, config = self.state, self.state.config
        assert self.sandbox is not None
        feedback: str | None = None
        number = 0
        while True:
            number += 1
            end = await self._agent_turn(number, feedback)
            final = end is not TurnEnd.RETURNED or self._last_pass_allowed(number)
            if not final:
                await self._space_passes()
                final = self._remaining() <= 0
            verify_clock = anyio.current_time()
            elapsed = self._elapsed()
            state.events.emit("verifier_pass_started", pass_no=number, final=final)
            try:
                async with self._exclusive():
                    result = await verifier.run_pass(self.sandbox, number, final=final)
                result = attrs.evolve(result, elapsed_sec=elapsed)
            except SandboxError as exc:
                if await self._sandbox_alive():
                    raise
                state.outcome = Outcome.AGENT_ERROR
                state.error = f"the agent's sandbox stopped during turn {number} ({exc})"
                state.events.emit("agent_sandbox_lost", turn=number, error=str(exc))
                state.save()
                return
            self.last_pass_end = anyio.current_time()
            state.passes.append(result)
            state.events.emit(
                "verifier_pass_finished",
                pass_no=number,
                outcome=str(result.outcome),
                reward=result.reward,
                seconds=round(result.duration_sec, 3),
            )
            if not config.verifier_time_counts:
                self.deadline += anyio.current_time() - verify_clock
            if result.outcome is PassOutcome.PASSED or (not final and self._remaining() <= 0):
                # Solved, or time ran out during an interim pass: it becomes the final one.
                state.passes[-1] = attrs.evolve(result, final=True)
                state.outcome = self._outcome(state.passes[-1], end)
                state.save()
                return
            if final:
                state.outcome = self._outcome(result, end)
                state.save()
                return
            feedback = rejection_message(
                config.feedback,
                number=number,
                remaining_sec=self._remaining(),
                scorecard=result.scorecard,
            )
            state.save()

    @contextlib.asynccontextmanager
    async def _checkpoints(self, verifier: Verifier) -> AsyncIterator[None]:
        """Take the episode's hidden checkpoints (if it has an interval) during the block."""
        interval = self.state.config.checkpoint_interval_sec
        if interval is None:
            yield
            return
        assert self.sandbox is not None
        assert self.view is not None
        assert self.state.config.budget_sec is not None
        self.checkpointer = Checkpointer(
            verifier=attrs.evolve(verifier),
            sandbox=self.sandbox,
            gate=self.view,
            interval_sec=interval,
            budget_sec=self.state.config.budget_sec,
            elapsed=self._elapsed,
            events=self.state.events,
            checkpoints=self.state.checkpoints,
        )
        try:
            async with self.checkpointer.running():
                yield
        finally:
            self.state.checkpoints_skipped = self.checkpointer.skipped
            self.state.save()

    def _exclusive(self) -> contextlib.AbstractAsyncContextManager[None]:
        """No capture during the block (a verifier pass freezes and thaws itself)."""
        if self.checkpointer is None:
            return contextlib.nullcontext()
        return self.checkpointer.exclusive()

    async def _space_passes(self) -> None:
        """Wait out ``min_pass_interval_sec`` since the last interim pass (within the budget)."""
        if self.last_pass_end is None or self.min_pass_interval_sec <= 0:
            return
        wait = self.last_pass_end + self.min_pass_interval_sec - anyio.current_time()
        if wait > 0:
            self.state.events.emit("verifier_pass_spaced", wait_sec=round(wait, 3))
            await anyio.sleep(min(wait, self._remaining()))

    async def _sandbox_alive(self) -> bool:
        assert self.sandbox is not None
        try:
            await self.sandbox.exec(["true"], timeout=30)
        except SandboxUnavailableError:
            return False
        except LhtbError:
            return True
        return True

    def _last_pass_allowed(self, number: int) -> bool:
        """True when this stop's pass must be the final one."""
        config = self.state.config
        if not config.continue_until_timeout:
            return True
        return config.max_passes is not None and number >= config.max_passes

    def _remaining(self) -> float:
        return max(0.0, self.deadline - anyio.current_time())

    def _elapsed(self) -> float:
        """The budget clock: the budget spent so far (within ``[0, budget]``)."""
        budget = self.state.config.budget_sec
        assert budget is not None
        return min(budget, max(0.0, budget - (self.deadline - anyio.current_time())))

    def _outcome(self, result: VerifierPass, end: TurnEnd) -> Outcome:
        if end is TurnEnd.ERROR:
            return Outcome.AGENT_ERROR
        if result.outcome in _PASS_OUTCOME_TO_EPISODE:
            return _PASS_OUTCOME_TO_EPISODE[result.outcome]
        return Outcome.SOLVED if result.outcome is PassOutcome.PASSED else Outcome.UNSOLVED

    async def _agent_turn(
        self, number: int, feedback: str | None, *, instruction: str | None = None
    ) -> TurnEnd:
        """Run turn ``number`` (on the task's instruction unless given another)."""
        state = self.state
        assert self.sandbox is not None
        usage = UsageRecorder()
        assert self.view is not None
        turn = Turn(
            instruction=self.task.instruction if instruction is None else instruction,
            sandbox=self.view,
            number=number,
            deadline=self.deadline,
            usage=usage,
            log=state.events.bind(turn=number),
            feedback=feedback,
            task_name=self.task.name,
            episode_dir=state.directory,
        )
        started_at = datetime.now(UTC)
        clock = time.monotonic()
        state.events.emit("agent_turn_started", turn=number, remaining_sec=round(self._remaining()))
        self.view.open()
        try:
            end, error = await self._drive(turn)
        finally:
            self.view.close()
        state.usage.total = state.usage.total + usage.total
        state.usage.models |= usage.models
        if end is TurnEnd.ERROR:
            state.error = error
        state.turns.append(
            TurnRecord(
                number=number,
                started_at=started_at,
                duration_sec=time.monotonic() - clock,
                end=end,
                feedback=feedback,
                error=error,
                usage=usage.total,
            )
        )
        state.events.emit("agent_turn_finished", turn=number, end=str(end), error=error)
        state.save()
        return end

    async def _drive(self, turn: Turn) -> tuple[TurnEnd, str | None]:
        """Run one agent turn until it returns, fails, or the deadline passes."""

        async def body() -> None:
            agent = self.agent if self.agent is not None else self.next_agent
            self.next_agent = None
            agent = agent if agent is not None else self._build()
            if uses_solution(agent) and self.solution_dir is not None:
                assert self.sandbox is not None
                await stage_solution(self.sandbox, self.solution_dir)
            await agent.run(turn)

        # Its own task, so that an agent swallowing cancellation cannot hold the episode.
        task = asyncio.ensure_future(body())
        task.add_done_callback(_consume)
        try:
            done, _ = await asyncio.wait({task}, timeout=self._remaining())
            if done:
                failure = task.exception()
                if failure is None:
                    return TurnEnd.RETURNED, None
                if not isinstance(failure, Exception):
                    raise failure
                return TurnEnd.ERROR, f"{type(failure).__name__}: {failure}"
            assert self.view is not None
            self.view.close()  # the budget is spent: no new command, even during the grace
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=AGENT_CANCEL_GRACE_SEC)
            if done:
                return TurnEnd.DEADLINE, None
            self.state.events.emit("agent_abandoned", grace_sec=AGENT_CANCEL_GRACE_SEC)
            return TurnEnd.DEADLINE, (
                f"the agent ignored cancellation for {AGENT_CANCEL_GRACE_SEC:g}s and was abandoned"
            )
        finally:
            if not task.done():
                task.cancel()

    async def _teardown(self) -> None:
        clock = time.monotonic()
        if self.sandbox is not None:
            try:
                await self.sandbox.destroy()
            except Exception as exc:  # never let cleanup hide the episode's result
                self.state.events.emit("teardown_failed", error=f"{type(exc).__name__}: {exc}")
        self.state.teardown_sec = time.monotonic() - clock
