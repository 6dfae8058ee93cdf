"""Verifier passes: run the hidden tests out of the agent's reach and score them.

A pass always starts by freezing the agent sandbox. Then, by isolation mode:

* ``separate``: export the declared artifacts, start a fresh verifier sandbox
  from the pristine task image (or from ``tests/Dockerfile``, which brings the
  tests with it, as in Harbor), import them, run the tests there, destroy it;
* ``snapshot``: commit the frozen agent sandbox, run the tests in a fresh
  sandbox started from that snapshot, destroy it and the snapshot;
* ``shared``: wipe ``/logs/verifier``, copy the tests in, run them in the frozen
  agent sandbox, then remove the tests and the logs.

The agent is thawed afterwards unless the pass is the final one. A ``live``
pass (Harbor's behaviour, ``shared`` only) freezes nothing: the agent's
services keep answering while the tests run, and the tests, their logs and
scratch are made private to the verifier's user instead. Test output,
logs and the scorecard land on the host, one folder per pass, never in the
agent's sandbox. The tests get a private scratch directory as ``TMPDIR``
(``pytest-of-*`` and friends land there), created fresh and removed with the
tests.

What the agent submits is untrusted. In ``separate`` mode every exported
artifact must stay under its declared path: members elsewhere, links that
resolve outside it, devices, FIFOs and archives over the caps are refused,
and the pass then scores 0 with the reason recorded (an unreadable
submission earns nothing; it is not an infrastructure error to retry). A
``snapshot`` over the backend's size cap is refused the same way. A missing
artifact path is simply not copied.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tarfile
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import anyio
import attrs

from lhtb._util.log import get_logger
from lhtb.errors import (
    ArchiveError,
    ExecError,
    GradeInputError,
    RewardFileError,
    SandboxError,
)
from lhtb.sandbox.archive import pack_directory, pack_file, relocate
from lhtb.sandbox.base import ManagedSandbox, SandboxBackend, SandboxSpec, SnapshotMaker
from lhtb.sandbox.host._files import extract_to_host, write_host_file
from lhtb.sandbox.registry import resolve_backend
from lhtb.task._model import IsolationMode, Task, resolve_env, verifies_live
from lhtb.verify._artifacts import confine, non_directory_root, removable_members
from lhtb.verify._host_files import ArtifactFiles, ArtifactSource, host_files
from lhtb.verify._pass import KeptInputs, PassOutcome, VerifierPass
from lhtb.verify._scoring import Scorecard, check_declared, read_scorecard
from lhtb.verify._seeds import SEED_ENV, check_seed, random_seed
from lhtb.verify.kit import KIT_PATH

__all__ = [
    "DEFAULT_KEEP_INPUTS_BYTES",
    "INPUTS_DIR",
    "Capture",
    "Verifier",
    "confine",
    "kept_archives",
    "prepare_verifier_image",
    "verifier_recipe",
    "verifier_task",
]

log = get_logger(__name__)

TESTS_DIR = "/tests"
LOGS_DIR = "/logs/verifier"
SCRATCH_DIR = "/tmp/lhtb-verifier"
"""The tests' ``TMPDIR``: fresh for each pass, removed with the tests."""
_PREPARE_LOGS = (
    "if [ -L /logs ] || { [ -e /logs ] && [ ! -d /logs ]; }; then rm -f /logs; fi; "
    f"mkdir -p {LOGS_DIR} {SCRATCH_DIR} && chmod 777 {LOGS_DIR} && chmod 1777 {SCRATCH_DIR}"
)
_RESET = f"rm -rf {TESTS_DIR} {LOGS_DIR} {SCRATCH_DIR}; {_PREPARE_LOGS}"
_RESET_KEEPING_TESTS = f"rm -rf {LOGS_DIR} {SCRATCH_DIR}; {_PREPARE_LOGS}"
"""A verifier image built from ``tests/Dockerfile`` brings its own ``/tests``."""
_REMOVE = f"rm -rf {TESTS_DIR} {LOGS_DIR} {SCRATCH_DIR}"
_LIVE_RESET = (
    f"rm -rf {TESTS_DIR} {LOGS_DIR} {SCRATCH_DIR}; "
    "if [ -L /logs ] || { [ -e /logs ] && [ ! -d /logs ]; }; then rm -f /logs; fi; "
    f"mkdir -p /logs && {{ mkdir -m 700 {LOGS_DIR} 2>/dev/null || "
    f"{{ [ -d {LOGS_DIR} ] && [ ! -L {LOGS_DIR} ]; }}; }} && mkdir -m 700 {SCRATCH_DIR} && "
    f'chown "$1" {LOGS_DIR} {SCRATCH_DIR} && chmod 700 {LOGS_DIR} && '
    f"find {LOGS_DIR} -mindepth 1 -delete"
)
"""A live pass: fresh owner-only logs and scratch. ``/logs/verifier`` may be a mount point
(Harbor compose files bind-mount it): ``rm -rf`` empties it and cannot remove it, so it is
kept, made owner-only and emptied again after that (nothing written before counts)."""
_LIVE_RESET_KEEPING_TESTS = _LIVE_RESET.replace(f"rm -rf {TESTS_DIR} ", "rm -rf ", 1)
"""A live pass in a verifier image built from ``tests/Dockerfile``: its ``/tests`` stays."""
_LIVE_LOCK = f'chown -R "$1" {TESTS_DIR} && chmod 700 {TESTS_DIR}'
"""Live passes: the agent's processes are running, so the tests (copied in with
owner-only modes), their logs and scratch belong to the verifier's user alone from
the moment they exist; an unprivileged agent can neither read nor write any of it."""
_SETUP_TIMEOUT_SEC = 120.0
HARNESS_FILES = ("test-stdout.txt", "test-stderr.txt", "refused.txt", "dropped.txt")
"""What the harness writes in a pass folder; the tests' log files of these names are dropped."""
_DROPPED_LINES = 1000
INPUTS_DIR = "final-inputs"
"""Where the last pass's graded artifacts are kept, in the episode directory."""
DEFAULT_KEEP_INPUTS_BYTES = 256 * 1024**2
"""Kept inputs larger than this are not kept (the episode records that they were not)."""

_Result = tuple[PassOutcome, Scorecard | None, str | None, float | None]
"""Outcome, scorecard, error, and a reward when there is no scorecard (a refusal scores 0)."""


@attrs.frozen
class Capture:
    """A state taken from a frozen sandbox, to grade after it thaws (see :meth:`Verifier.capture`).

    ``archives``: the artifact archives (``separate``); ``snapshot``: the whole
    filesystem (``snapshot``, ``shared``), made (``staged``) and released by the
    grading; ``refused``: why neither could be taken (the grading then scores 0
    with that reason).
    """

    archives: tuple[bytes, ...] | None = None
    snapshot: SandboxSpec | None = None
    staged: SnapshotMaker | None = None
    refused: str | None = None


def _grading_seed(seed: int | None) -> int:
    return random_seed() if seed is None else check_seed(seed, where="Verifier(seed=)")


def _default_output_dir(verifier: Verifier) -> Path:
    return Path("runs") / f"{verifier.task.name.replace('/', '__')}-{verifier.run_id}"


@attrs.define
class Verifier:
    """Grades states of ``task`` exactly as an episode's verifier passes do.

    The runner grades every pass of an episode with one; outside an episode,
    :meth:`grade` grades a running sandbox (see :func:`lhtb.open_sandbox`) and
    :meth:`grade_files` artifacts given as files. ``backend`` is a backend, its
    name, or ``None`` for the default; grade sandboxes of that same backend.

    Every pass gets the grading ``seed`` as ``$LHTB_SEED``, whatever the
    isolation mode, and records it: unchanged work scores the same on every
    pass. As for an episode, ``None`` draws one random seed for this verifier.
    ``output_dir`` (an episode's directory; default ``runs/<task>-grade-<id>``)
    receives ``verifier/pass-NNN/`` folders, which each result's ``log_dir``
    names relative to it, and the graded inputs up to ``keep_inputs_bytes``
    (``final-inputs/``). ``image`` is the pristine task image; when it is not
    given, it and ``verifier_image`` are prepared on first use.
    """

    task: Task
    backend: SandboxBackend = attrs.field(default=None, converter=resolve_backend)
    seed: int = attrs.field(default=None, converter=_grading_seed, kw_only=True)
    run_id: str = attrs.field(factory=lambda: f"grade-{uuid.uuid4().hex[:12]}", kw_only=True)
    output_dir: Path = attrs.field(
        default=attrs.Factory(_default_output_dir, takes_self=True), converter=Path, kw_only=True
    )
    image: str | None = attrs.field(default=None, kw_only=True)
    keep_inputs_bytes: int = attrs.field(default=DEFAULT_KEEP_INPUTS_BYTES, kw_only=True)
    verifier_image: str | None = attrs.field(default=None, kw_only=True)
    """The separate verifier's own image, built from ``tests/Dockerfile`` (see
    :func:`prepare_verifier_image`); the tests then come from that image."""
    live: bool = attrs.field(
        default=attrs.Factory(lambda self: verifies_live(self.task), takes_self=True),
        kw_only=True,
    )
    """Leave the agent's processes running during passes (default: as the task's
    episodes do, see :func:`lhtb.task.verifies_live`); the tests and their logs are
    then made private to the verifier's user instead."""
    _kept: KeptInputs | None = attrs.field(default=None, init=False)
    _graded: int = attrs.field(default=0, init=False)

    async def grade(self, sandbox: ManagedSandbox) -> VerifierPass:
        """Grade ``sandbox``'s current state under the task's isolation mode.

        The sandbox is frozen while it is graded and thawed afterwards, so work
        can go on in it.

        Raises:
            SandboxError: the sandbox or the verifier sandbox failed (infrastructure).
        """
        self._graded += 1
        return await self.run_pass(sandbox, self._graded, final=False)

    async def grade_files(self, source: ArtifactFiles) -> VerifierPass:
        """Grade artifacts given as files, as a ``separate`` pass grades exported ones.

        ``source`` is a host directory laid out like the sandbox's root
        (``DIR/app/x.py`` is ``/app/x.py``) or a mapping of sandbox paths to
        bytes. Only the task's declared artifacts are taken from it, under the
        same confinement rules as an episode's export: a member or link leaving
        its artifact path refuses the submission (reward 0, reason recorded).

        Raises:
            GradeInputError: the task is not graded in ``separate`` isolation,
                or ``source`` is not a directory or a valid mapping.
            SandboxError: the verifier sandbox failed (infrastructure).
        """
        if self.task.verifier.isolation is not IsolationMode.SEPARATE:
            raise GradeInputError(
                f"task {self.task.name!r} is graded in {self.task.verifier.isolation} "
                "isolation, which grades a whole sandbox, not files",
                where="Verifier.grade_files",
                fix="open the task's sandbox with lhtb.open_sandbox, write the files into it "
                "and grade it with Verifier.grade",
            )
        async with host_files(source) as files:
            self._graded += 1
            log_dir = self._log_dir(f"pass-{self._graded:03d}")
            started_at = datetime.now(UTC)
            clock = time.monotonic()
            self._kept = None
            result = await self._verify_copy(files, log_dir)
        return self._record(result, self._graded, started_at, clock, log_dir, final=False)

    async def run_pass(self, sandbox: ManagedSandbox, number: int, *, final: bool) -> VerifierPass:
        """Freeze ``sandbox``, verify its state, and thaw it unless ``final``.

        The graded inputs replace the previous pass's under ``final-inputs/``
        in the episode directory (see :class:`~lhtb.verify._pass.KeptInputs`).
        Sandbox failures propagate as :class:`~lhtb.errors.SandboxError` (an
        infrastructure problem); a bad or missing reward is recorded in the pass.
        """
        log_dir = self._log_dir(f"pass-{number:03d}")
        started_at = datetime.now(UTC)
        clock = time.monotonic()
        self._kept = None
        try:
            if not self.live:
                await sandbox.freeze()
            result = await self._verify(sandbox, log_dir)
        except BaseException:
            if not final and not self.live:
                with anyio.CancelScope(shield=True), contextlib.suppress(SandboxError):
                    await sandbox.thaw()  # best effort: the failure that got here is the news
            raise
        if not final and not self.live:
            await sandbox.thaw()
        return self._record(result, number, started_at, clock, log_dir, final=final)

    async def regrade(self, archives: Sequence[bytes], name: str) -> VerifierPass:
        """Grade kept artifact ``archives`` in a fresh verifier sandbox (``lhtb verify``).

        The pass is recorded under ``verifier/<name>/`` with this verifier's seed.
        """
        log_dir = self._log_dir(name)
        started_at = datetime.now(UTC)
        clock = time.monotonic()
        result = await self._in_pristine_sandbox(list(archives), log_dir)
        return self._record(result, 0, started_at, clock, log_dir, final=True)

    async def capture(self, sandbox: ManagedSandbox) -> Capture:
        """Take what grading needs from ``sandbox``, which the caller has frozen.

        ``separate``: the declared artifacts, exported and confined as a pass
        does; ``snapshot`` and ``shared``: a snapshot of the whole filesystem,
        staged (:meth:`~lhtb.sandbox.base.ManagedSandbox.stage_snapshot`: only what
        must happen frozen happens now) and made when graded, in a fresh sandbox,
        never in the agent's. A refused export or snapshot is returned as such, not
        raised.

        Raises:
            SandboxError: the sandbox failed (infrastructure).
        """
        if self.task.verifier.isolation is IsolationMode.SEPARATE:
            return await self._capture_artifacts(sandbox)
        return await self._capture_snapshot(sandbox, staged=True)

    async def grade_capture(self, capture: Capture, number: int, *, name: str) -> VerifierPass:
        """Grade ``capture`` in a fresh verifier sandbox, recorded under ``verifier/<name>/``.

        The capture's snapshot is released afterwards. Nothing is kept for
        re-grading (``inputs`` is ``None``).

        Raises:
            SandboxError: the verifier sandbox failed (infrastructure).
        """
        log_dir = self._log_dir(name)
        started_at = datetime.now(UTC)
        clock = time.monotonic()
        result = await self._grade(capture, log_dir)
        return attrs.evolve(
            self._record(result, number, started_at, clock, log_dir, final=False), inputs=None
        )

    def _log_dir(self, name: str) -> Path:
        log_dir = self.output_dir / "verifier" / name
        log_dir.mkdir(parents=True, exist_ok=True)
        return log_dir

    def _record(
        self,
        result: _Result,
        number: int,
        started_at: datetime,
        clock: float,
        log_dir: Path,
        *,
        final: bool,
    ) -> VerifierPass:
        outcome, scorecard, error, reward = result
        if outcome is PassOutcome.PASSED and scorecard is not None:
            passed = scorecard.reward >= self.task.verifier.pass_threshold
            outcome = PassOutcome.PASSED if passed else PassOutcome.FAILED
        if error is not None:
            write_host_file(log_dir, "refused.txt", error.encode() + b"\n")
        return VerifierPass(
            number=number,
            started_at=started_at,
            duration_sec=time.monotonic() - clock,
            outcome=outcome,
            reward=scorecard.reward if scorecard else reward,
            scorecard=scorecard,
            error=error,
            log_dir=str(log_dir.relative_to(self.output_dir)),
            final=final,
            seed=self.seed,
            inputs=self._kept,
        )

    def _keep(self, archives: Sequence[bytes] | None, note: str | None = None) -> None:
        """Replace the kept inputs with ``archives`` (within the cap), or record why not."""
        target = self.output_dir / INPUTS_DIR
        shutil.rmtree(target, ignore_errors=True)
        size = sum(len(a) for a in archives or ())
        if archives is not None and size > self.keep_inputs_bytes:
            note = f"{size} bytes is over the {self.keep_inputs_bytes}-byte cap for kept inputs"
        if archives is None or note is not None:
            self._kept = KeptInputs(path=None, size_bytes=size, note=note)
            return
        staging = self.output_dir / f".{INPUTS_DIR}.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for index, archive in enumerate(archives):
            (staging / f"artifact-{index:03d}.tar").write_bytes(archive)
        staging.rename(target)
        self._kept = KeptInputs(path=INPUTS_DIR, size_bytes=size)

    async def _verify(self, sandbox: ManagedSandbox, log_dir: Path) -> _Result:
        mode = self.task.verifier.isolation
        if mode is not IsolationMode.SEPARATE and not await _workdir_usable(sandbox):
            self._keep(None, "the agent's working directory is no longer usable")
            return _refused("refused: the agent's working directory is no longer usable")
        if mode is not IsolationMode.SEPARATE:
            self._keep(None, f"isolation {mode!s} keeps no re-gradable copy of the final state")
        if mode is IsolationMode.SHARED:
            # The tests run among the agent's processes, which can keep any command from
            # starting (every process slot held): the agent's spoiled pass, not the host's.
            try:
                return await self._run_tests(sandbox, log_dir)
            except ExecError as error:
                reason = f"the tests could not start in the agent's sandbox: {error}"
                return PassOutcome.ERROR, None, reason, None
            finally:
                with contextlib.suppress(ExecError):  # shared hides nothing from the agent anyway
                    await sandbox.exec(_REMOVE, timeout=_SETUP_TIMEOUT_SEC, user="root", cwd="/")
        if mode is IsolationMode.SNAPSHOT:
            # A pass holds the agent anyway: one commit, not a staged copy and a commit.
            return await self._grade(await self._capture_snapshot(sandbox, staged=False), log_dir)
        return await self._verify_copy(
            sandbox, log_dir, network_of=sandbox.id if self.live else None
        )

    async def _verify_copy(
        self, source: ArtifactSource, log_dir: Path, *, network_of: str | None = None
    ) -> _Result:
        """``separate``: the artifacts of ``source`` (a sandbox, or files) in a pristine sandbox.

        ``network_of`` (a live pass): the verifier joins that sandbox's network, so the
        tests reach the agent's running services on ``localhost``.
        """
        capture = await self._capture_artifacts(source)
        if capture.archives is None:
            self._keep(None, "the artifacts were refused")
        else:
            self._keep(capture.archives)
        return await self._grade(capture, log_dir, network_of=network_of)

    async def _capture_snapshot(self, sandbox: ManagedSandbox, *, staged: bool) -> Capture:
        try:
            if staged:
                return Capture(staged=await sandbox.stage_snapshot())
            return Capture(snapshot=await sandbox.snapshot())
        except ArchiveError as exc:
            return Capture(refused=f"snapshot refused: {exc}")

    async def _capture_artifacts(self, source: ArtifactSource) -> Capture:
        try:
            return Capture(archives=tuple(await self._export_artifacts(source)))
        except ArchiveError as exc:
            return Capture(refused=f"artifacts refused: {exc}")

    async def _grade(
        self, capture: Capture, log_dir: Path, *, network_of: str | None = None
    ) -> _Result:
        """Run the tests on a capture: its snapshot, or its artifacts in a pristine sandbox."""
        if capture.refused is not None:
            return _refused(capture.refused)
        if capture.staged is not None:
            capture = Capture(snapshot=await capture.staged())
        if capture.snapshot is not None:
            try:
                return await self._in_fresh_sandbox(capture.snapshot, log_dir, artifacts=None)
            finally:
                with anyio.CancelScope(shield=True):  # a cancelled pass leaves no image
                    await self.backend.release(capture.snapshot)
        archives = list(capture.archives or ())
        return await self._in_pristine_sandbox(archives, log_dir, network_of=network_of)

    async def _in_pristine_sandbox(
        self, artifacts: list[bytes], log_dir: Path, *, network_of: str | None = None
    ) -> _Result:
        """Run the tests on ``artifacts`` in the separate verifier's fresh sandbox."""
        if self.image is None:
            self.image = await self.backend.prepare(self.task)
            self.verifier_image = await prepare_verifier_image(self.backend, self.task)
        if self.verifier_image is not None:  # its image brings the tests
            task = verifier_task(self.task)
            spec = SandboxSpec(image=self.verifier_image, task=task, run_id=self.run_id)
        else:
            spec = SandboxSpec(image=self.image, task=self.task, run_id=self.run_id)
        bundled = self.verifier_image is not None
        spec = attrs.evolve(spec, network_of=network_of)
        return await self._in_fresh_sandbox(spec, log_dir, artifacts=artifacts, bundled=bundled)

    async def _export_artifacts(self, source: ArtifactSource) -> list[bytes]:
        archives = []
        for artifact in self.task.artifacts:
            try:
                archive = await source.export([artifact.source], exclude=artifact.exclude)
            except FileNotFoundError:
                log.info("artifact_missing", path=artifact.source)
                continue
            archive = confine(archive, artifact.source)
            if artifact.target != artifact.source:
                archive = relocate(archive, artifact.source, artifact.target)
            archives.append(archive)
        return archives

    async def _in_fresh_sandbox(
        self,
        spec: SandboxSpec,
        log_dir: Path,
        *,
        artifacts: list[bytes] | None,
        bundled: bool = False,
    ) -> _Result:
        verifier_spec = attrs.evolve(
            spec, role="verifier", network=self.task.environment.allow_internet
        )
        fresh = await self.backend.start(verifier_spec)
        try:
            for archive in artifacts or ():
                root = non_directory_root(archive)
                if root is not None and not await _not_a_directory(fresh, root):
                    return _refused(
                        f"artifacts refused: {root} is a directory in the task's image, "
                        "but the agent left something else there"
                    )
            if artifacts is not None:
                await self._clear_artifact_paths(fresh)
            for archive in artifacts or ():
                try:
                    await fresh.import_(archive, dest="/")
                except ArchiveError as exc:
                    return _refused(f"artifacts refused: {exc}")
            return await self._run_tests(fresh, log_dir, bundled=bundled)
        finally:
            await fresh.destroy()

    async def _clear_artifact_paths(self, sandbox: ManagedSandbox) -> None:
        """Empty each declared artifact path of the pristine sandbox before the agent's copy
        goes in, so that it holds what the agent left: a file the agent deleted does not come
        back from the image, and an artifact the agent removed stays removed. What an artifact
        ``exclude``s was not exported, so the image's copy of it stays."""
        for artifact in self.task.artifacts:
            target = "/" + artifact.target.strip("/")
            if target == "/":
                continue  # the whole filesystem: nothing sensible to empty first
            if not artifact.exclude:
                await sandbox.remove([target])
                continue
            try:
                pristine = await sandbox.export([target])
            except FileNotFoundError:
                continue  # not in the image: nothing to empty
            await sandbox.remove(removable_members(pristine, artifact.exclude))

    async def _run_tests(
        self, sandbox: ManagedSandbox, log_dir: Path, *, bundled: bool = False
    ) -> _Result:
        """Run ``test.sh``: copied in from ``tests/``, or already in the image when ``bundled``."""
        task = self.task
        if task.tests_dir is None:
            return PassOutcome.ERROR, None, "the task has no tests directory", None
        user = task.verifier.user if task.verifier.user is not None else "root"
        if self.live:
            reset = await sandbox.exec(
                [
                    "sh",
                    "-c",
                    _LIVE_RESET_KEEPING_TESTS if bundled else _LIVE_RESET,
                    "reset",
                    str(user),
                ],
                timeout=_SETUP_TIMEOUT_SEC,
                user="root",
                cwd="/",
            )
        else:
            reset = await sandbox.exec(
                _RESET_KEEPING_TESTS if bundled else _RESET,
                timeout=_SETUP_TIMEOUT_SEC,
                user="root",
                cwd="/",
            )
        if not reset.ok:
            detail = reset.stderr_text.strip()[-300:]
            return PassOutcome.ERROR, None, f"could not prepare {LOGS_DIR}: {detail}", None
        if bundled:  # the image brings the tests; the kit joins them
            archive = pack_file(KIT_PATH, f"{TESTS_DIR}/lhtb_scorecard.py")
        else:
            extra = {"lhtb_scorecard.py": KIT_PATH}
            archive = pack_directory(task.tests_dir, TESTS_DIR, extra=extra)
        await sandbox.import_(owner_only(archive) if self.live else archive, dest="/")
        if self.live:
            locked = await sandbox.exec(
                ["sh", "-c", _LIVE_LOCK, "lock", str(user)], timeout=_SETUP_TIMEOUT_SEC, user="root"
            )
            if not locked.ok:
                detail = locked.stderr_text.strip()[-300:]
                return PassOutcome.ERROR, None, f"could not make the tests private: {detail}", None
        result = await sandbox.exec(
            ["sh", "-c", f"chmod +x {TESTS_DIR}/test.sh && exec {TESTS_DIR}/test.sh"],
            timeout=task.verifier.timeout_sec,
            cwd=task.environment.workdir,
            env=self._env(),
            user=user,
        )
        write_host_file(log_dir, "test-stdout.txt", result.stdout)
        write_host_file(log_dir, "test-stderr.txt", result.stderr)
        try:
            dropped = extract_to_host(
                await sandbox.export([LOGS_DIR]), log_dir, strip=LOGS_DIR, reserved=HARNESS_FILES
            )
        except (ArchiveError, FileNotFoundError) as exc:
            return PassOutcome.ERROR, None, f"unusable {LOGS_DIR}: {exc}", None
        if dropped:
            log.info("verifier_logs_dropped", members=len(dropped))
            lines = [*dropped[:_DROPPED_LINES], f"... and {len(dropped) - _DROPPED_LINES} more"]
            text = "\n".join(lines if len(dropped) > _DROPPED_LINES else dropped) + "\n"
            write_host_file(log_dir, "dropped.txt", text.encode())
        if result.timed_out:
            limit = task.verifier.timeout_sec
            return PassOutcome.TIMEOUT, None, f"tests ran past verifier timeout_sec={limit:g}", None
        try:
            scorecard = read_scorecard(log_dir)
            if task.verifier.subtasks:
                check_declared(scorecard, task.verifier.subtasks, path=log_dir)
        except RewardFileError as exc:
            return PassOutcome.ERROR, None, str(exc), None
        return PassOutcome.PASSED, scorecard, None, None

    def _env(self) -> Mapping[str, str]:
        where = f"{self.task.name} [verifier].env"
        return {
            "TMPDIR": SCRATCH_DIR,
            **resolve_env(self.task.environment.env, where=f"{self.task.name} [environment].env"),
            **resolve_env(self.task.verifier.env, where=where),
            SEED_ENV: str(self.seed),
        }


def kept_archives(episode_dir: Path, kept: KeptInputs) -> list[bytes]:
    """The artifact archives a pass kept, in the order it imported them."""
    if kept.path is None:
        return []
    return [path.read_bytes() for path in sorted((episode_dir / kept.path).glob("artifact-*.tar"))]


def verifier_recipe(task: Task) -> Path | None:
    """``tests/Dockerfile`` when it builds the verifier's image (``separate`` isolation only,
    as in Harbor); ``None`` when the verifier starts from the task's image."""
    if task.verifier.isolation is not IsolationMode.SEPARATE or task.tests_dir is None:
        return None
    recipe = task.tests_dir / "Dockerfile"
    return recipe if recipe.is_file() else None


def verifier_task(task: Task) -> Task:
    """``task`` as its verifier sandbox sees it when ``tests/`` is the image's recipe.

    The environment is ``[verifier.environment]`` when given, else the task's, built
    from ``tests/``, without the task's healthcheck (that checks the agent's sandbox).
    """
    environment = task.verifier.environment or task.environment
    return attrs.evolve(
        task,
        environment=attrs.evolve(environment, docker_image=None, healthcheck=None),
        environment_dir=task.tests_dir,
    )


async def prepare_verifier_image(backend: SandboxBackend, task: Task) -> str | None:
    """Build the separate verifier's image from ``tests/Dockerfile``, when the task has one.

    Raises:
        SandboxError: the build failed (as for the task's own image).
    """
    if verifier_recipe(task) is None:
        return None
    image = await backend.prepare(verifier_task(task))
    log.info("verifier_image_ready", task=task.name, image=image)
    return image


async def _workdir_usable(sandbox: ManagedSandbox) -> bool:
    """Whether a command still starts in the sandbox's working directory (an agent may
    have replaced it by a file: its own failure, not the infrastructure's).

    Only a failed ``chdir`` counts: a command that cannot start because the agent holds
    every process slot says nothing about the directory (a snapshot is graded in a new
    sandbox; in ``shared`` the tests then fail to start, the agent's spoiled pass).
    """
    try:
        await sandbox.exec(["true"], timeout=_SETUP_TIMEOUT_SEC, user="root")
    except ExecError as error:
        return "chdir" not in str(error)
    return True


async def _not_a_directory(sandbox: ManagedSandbox, path: str) -> bool:
    """True when ``path`` in ``sandbox`` is missing or not a directory."""
    probe = ["sh", "-c", '[ -d "$1" ]', "sh", path]
    result = await sandbox.exec(probe, timeout=_SETUP_TIMEOUT_SEC, user="root", cwd="/")
    return result.exit_code == 1


def _refused(reason: str) -> _Result:
    log.warning("verifier_pass_refused", reason=reason)
    return PassOutcome.FAILED, None, reason, 0.0


def owner_only(archive: bytes) -> bytes:
    """``archive`` with every member's group and other permission bits cleared."""
    out = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as reader,
        tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as writer,
    ):
        for info in reader:
            info.mode &= 0o700
            writer.addfile(info, reader.extractfile(info) if info.isreg() else None)
    return out.getvalue()
