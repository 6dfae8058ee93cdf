"""An in-memory :class:`~lhtb.sandbox.base.SandboxBackend` with scripted verifier results."""

from __future__ import annotations

import inspect
import io
import itertools
import json
import posixpath
import re
import shlex
import tarfile
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

import anyio
import attrs

from lhtb.errors import ExecError, LhtbError, SandboxUnavailableError
from lhtb.sandbox.archive import is_excluded, validate_archive
from lhtb.sandbox.base import (
    DEFAULT_OUTPUT_LIMIT,
    Command,
    ExecResult,
    ManagedSandbox,
    Sandbox,
    SandboxBackend,
    SandboxSpec,
    Terminal,
)
from lhtb.task._model import Task

__all__ = ["FakeBackend", "FakeCall", "FakeSandbox", "ScriptedPass"]

TEST_SCRIPT = "/tests/test.sh"
LOGS_DIR = "/logs/verifier"
OPERATIONS = frozenset(
    {"prepare", "start", "exec", "read_file", "write_file", "freeze", "thaw", "export", "import"}
    | {"snapshot", "destroy"}
)
"""Operation names that :meth:`FakeBackend.fail` accepts."""


@attrs.frozen
class ScriptedPass:
    """What the task's tests produce on one verifier pass of a :class:`FakeBackend`.

    ``reward`` is written as ``reward.txt``; ``scorecard`` (the JSON object of an
    lhtb ``scorecard.json``) takes precedence. With neither, the tests write no
    reward file (the pass is a ``verifier_error``). ``seconds`` is how long the
    tests run, on the event loop's clock; past the verifier timeout the run is
    cut off and marked timed out.
    """

    reward: float | None = None
    scorecard: Mapping[str, Any] | None = None
    seconds: float = 0.0
    exit_code: int = 0
    stdout: str = ""


Verdict = float | ScriptedPass | Callable[[Mapping[str, bytes]], "float | ScriptedPass"]
"""One scripted pass: a reward, a :class:`ScriptedPass`, or a function of the files the
tests see (path -> bytes) returning either."""
ExecHandler = Callable[["FakeSandbox", Command], "ExecResult | Awaitable[ExecResult | None] | None"]
"""Answers a command the fake does not run itself; ``None`` means exit 0, no output."""


@attrs.frozen
class FakeCall:
    """One operation on a fake sandbox, in order: when (event-loop clock), where, what."""

    time: float
    sandbox: str
    operation: str
    detail: str = ""


class FakeBackend(SandboxBackend):
    """Sandboxes that live in memory: files in a dict, verifier results from a script.

    ``passes`` scripts the task's tests, one entry per verifier pass in order
    (the last one repeats). ``files`` is the initial filesystem of every
    sandbox started from :meth:`prepare`'s image. A command that runs
    ``/tests/test.sh`` plays the next scripted pass; ``test -e|-f|-d PATH``
    probes are answered from the files; the ``rm -rf`` and
    ``mkdir`` steps of any other command line are applied to the files (so
    the verifier's own housekeeping works), and the command then goes to
    ``on_exec``, exiting 0 without output when that is not given or returns ``None``.

    Everything is recorded for assertions: :attr:`sandboxes` (every sandbox
    started, in order), :attr:`calls` (every operation, timed on the event
    loop's clock; see :class:`~lhtb.testing.VirtualClockLoop` for exact times)
    and :attr:`tests_env` (the environment each pass's tests got, e.g. ``LHTB_SEED``).
    :meth:`fail` makes an operation raise, e.g. to test infrastructure errors.
    """

    name = "fake"

    def __init__(
        self,
        passes: Iterable[Verdict] = (0.0,),
        *,
        files: Mapping[str, bytes | str] | None = None,
        on_exec: ExecHandler | None = None,
    ) -> None:
        self.passes: list[Verdict] = list(passes)
        if not self.passes:
            raise LhtbError("FakeBackend needs at least one scripted pass", where="passes")
        self.files = {_norm(path): _bytes(data) for path, data in (files or {}).items()}
        self.on_exec = on_exec
        self.sandboxes: list[FakeSandbox] = []
        self.calls: list[FakeCall] = []
        self.passes_run = 0
        self.tests_env: list[dict[str, str]] = []
        self._faults: dict[str, list[BaseException]] = {}
        self._images: dict[str, dict[str, bytes]] = {}
        self._ids = itertools.count(1)

    def fail(self, operation: str, error: BaseException, *, times: int = 1) -> None:
        """Make the next ``times`` calls of ``operation`` (one of :data:`OPERATIONS`) raise."""
        if operation not in OPERATIONS:
            raise LhtbError(
                f"unknown operation {operation!r}",
                where="FakeBackend.fail",
                fix=f"use one of: {', '.join(sorted(OPERATIONS))}",
            )
        self._faults.setdefault(operation, []).extend([error] * times)

    @property
    def agent_sandbox(self) -> FakeSandbox:
        """The most recently started sandbox with the ``agent`` role."""
        for sandbox in reversed(self.sandboxes):
            if sandbox.spec.role == "agent":
                return sandbox
        raise LhtbError("no agent sandbox was started", where="FakeBackend.agent_sandbox")

    def operations(self, sandbox: str | None = None) -> list[str]:
        """The operation names of :attr:`calls` (of one sandbox id, if given), in order."""
        return [c.operation for c in self.calls if sandbox in (None, c.sandbox)]

    def record(self, sandbox: str, operation: str, detail: str = "") -> None:
        """Append to :attr:`calls`, then raise the error :meth:`fail` queued for ``operation``."""
        self.calls.append(FakeCall(anyio.current_time(), sandbox, operation, detail))
        queued = self._faults.get(operation)
        if queued:
            raise queued.pop(0)

    async def prepare(self, task: Task) -> str:
        """The image ``fake:<task name>``: the backend's initial :attr:`files`."""
        self.record("", "prepare", task.name)
        image = f"fake:{task.name}"
        self._images[image] = dict(self.files)
        return image

    async def start(self, spec: SandboxSpec) -> FakeSandbox:
        """A sandbox holding a copy of ``spec.image``'s files."""
        sandbox_id = f"fake-{next(self._ids)}"
        self.record(sandbox_id, "start", spec.role)
        files = self._images.get(spec.image)
        if files is None:
            raise SandboxUnavailableError(f"no image {spec.image!r}", where="FakeBackend.start")
        sandbox = FakeSandbox(self, sandbox_id, spec, dict(files))
        self.sandboxes.append(sandbox)
        return sandbox

    async def release(self, spec: SandboxSpec) -> None:
        """Forget a snapshot image."""
        if spec.image.startswith("fake-snapshot:"):
            self._images.pop(spec.image, None)

    async def cleanup(self, run_id: str | None = None) -> int:
        """Destroy the sandboxes of ``run_id`` (all if None) still alive; return how many."""
        alive = [s for s in self.sandboxes if not s.destroyed and run_id in (None, s.spec.run_id)]
        for sandbox in alive:
            await sandbox.destroy()
        return len(alive)

    def store_snapshot(self, sandbox: FakeSandbox) -> str:
        """Keep a copy of ``sandbox``'s files as a new image; return its reference."""
        image = f"fake-snapshot:{sandbox.id}-{next(self._ids)}"
        self._images[image] = dict(sandbox.files)
        return image

    async def run_tests(self, sandbox: FakeSandbox, timeout: float | None) -> ExecResult:
        """Play the next scripted pass in ``sandbox``: wait, then write its reward file."""
        verdict = self.passes[min(self.passes_run, len(self.passes) - 1)]
        self.passes_run += 1
        if callable(verdict):
            verdict = verdict(dict(sandbox.files))
        scripted = verdict if isinstance(verdict, ScriptedPass) else ScriptedPass(reward=verdict)
        if timeout is not None and scripted.seconds > timeout:
            await anyio.sleep(timeout)
            return ExecResult(exit_code=124, timed_out=True, duration_sec=timeout)
        await anyio.sleep(scripted.seconds)
        if scripted.scorecard is not None:
            sandbox.files[f"{LOGS_DIR}/scorecard.json"] = json.dumps(scripted.scorecard).encode()
        elif scripted.reward is not None:
            sandbox.files[f"{LOGS_DIR}/reward.txt"] = f"{scripted.reward!r}\n".encode()
        return ExecResult(
            exit_code=scripted.exit_code,
            stdout=scripted.stdout.encode(),
            duration_sec=scripted.seconds,
        )


class FakeSandbox(ManagedSandbox):
    """One in-memory sandbox: :attr:`files` maps absolute paths to contents."""

    def __init__(
        self, backend: FakeBackend, sandbox_id: str, spec: SandboxSpec, files: dict[str, bytes]
    ) -> None:
        self.backend = backend
        self.spec = spec
        self.files = files
        self.dirs: set[str] = set()
        self.modes: dict[str, int] = {}
        self.commands: list[Command] = []
        self.frozen = False
        self.destroyed = False
        self.lost = False
        self._id = sandbox_id

    @property
    def id(self) -> str:
        """``fake-<n>``, in start order."""
        return self._id

    def lose(self) -> None:
        """Make the sandbox vanish (as when its init was killed): every call then fails."""
        self.lost = True

    def _use(self, operation: str, detail: str = "") -> None:
        if self.destroyed or self.lost:
            raise SandboxUnavailableError(f"sandbox {self._id} is gone", where=operation)
        self.backend.record(self._id, operation, detail)

    def agent_view(self) -> Sandbox:
        """The agent's view: exec and files, no terminal."""
        return _AgentView(self)

    async def exec(
        self,
        command: Command,
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str | int | None = None,
        stdin: bytes | str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
    ) -> ExecResult:
        """Run the verifier's own commands; hand the others to ``on_exec``."""
        text = command if isinstance(command, str) else shlex.join(command)
        self._use("exec", text)
        self.commands.append(command)
        if TEST_SCRIPT in text:
            self.backend.record(self._id, "tests", str(self.backend.passes_run + 1))
            self.backend.tests_env.append(dict(env or {}))
            return await self.backend.run_tests(self, timeout)
        probe = self._test_probe(command)
        if probe is not None:
            return ExecResult(exit_code=0 if probe else 1)
        self._run_file_commands(text)
        handler = self.backend.on_exec
        result = handler(self, command) if handler is not None else None
        if inspect.isawaitable(result):
            result = await result
        return result if isinstance(result, ExecResult) else ExecResult(exit_code=0)

    def _test_probe(self, command: Command) -> bool | None:
        """Answer ``[ -e|-f|-d PATH ]`` / ``test -e|-f|-d PATH`` (also as ``sh -c SCRIPT sh PATH``)
        from the files; ``None`` for any other command."""
        words = shlex.split(command) if isinstance(command, str) else list(command)
        if words[:2] == ["sh", "-c"] and len(words) > 2:
            script, arguments = words[2], words[4:]
            for number, value in enumerate(arguments, start=1):
                script = script.replace(f'"${number}"', shlex.quote(value))
            words = shlex.split(script)
        if words[:1] == ["["] and words[-1:] == ["]"]:
            words = ["test", *words[1:-1]]
        if len(words) != 3 or words[0] != "test" or words[1] not in {"-e", "-f", "-d"}:
            return None
        path = _norm(words[2])
        is_file, is_dir = path in self.files, self._is_dir(path)
        return {"-e": is_file or is_dir, "-f": is_file, "-d": is_dir}[words[1]]

    def _is_dir(self, path: str) -> bool:
        """A directory made explicitly, or one holding files."""
        return path in self.dirs or any(_under(p, path) and p != path for p in self.files)

    def _run_file_commands(self, text: str) -> None:
        """Apply the ``rm -rf`` and ``mkdir`` steps of a shell command line."""
        for step in re.split(r";|&&|\|\|", text):
            # braces group steps; a redirection is not an operand
            words = [w for w in step.split() if w not in ("{", "}") and not _is_redirection(w)]
            if words[:2] == ["rm", "-rf"]:
                for root in map(_norm, words[2:]):
                    self._remove_tree(root)
            elif words[:1] == ["mkdir"]:
                self.dirs.update(map(_norm, _operands(words[1:])))

    async def read_file(self, path: str) -> bytes:
        """The file's bytes (``FileNotFoundError`` when missing)."""
        self._use("read_file", path)
        try:
            return self.files[_norm(path)]
        except KeyError:
            raise FileNotFoundError(2, "No such file in fake sandbox", path) from None

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        """Store the file."""
        self._use("write_file", path)
        self.files[_norm(path)] = _bytes(data)
        if mode is not None:
            self.modes[_norm(path)] = mode

    async def freeze(self) -> None:
        """Mark the sandbox frozen (there are no processes to stop)."""
        self._use("freeze")
        self.frozen = True

    async def thaw(self) -> None:
        """Mark the sandbox running again."""
        self._use("thaw")
        self.frozen = False

    async def export(self, paths: Sequence[str], *, exclude: Sequence[str] = ()) -> bytes:
        """A tar of the files under ``paths`` (names relative to ``/``).

        Raises:
            FileNotFoundError: nothing exists under one of ``paths``.
        """
        self._use("export", " ".join(paths))
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for root in map(_norm, paths):
                found = sorted(p for p in self.files if _under(p, root))
                if not found and root not in self.dirs:
                    raise FileNotFoundError(2, "No such file in fake sandbox", root)
                dirs = {d for d in self.dirs if _under(d, root)}
                if self._is_dir(root) and root != "/":
                    dirs.add(root)
                for path in sorted(dirs):
                    info = tarfile.TarInfo(path.lstrip("/"))
                    info.type, info.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(info)
                for path in found:
                    if is_excluded(path.lstrip("/"), exclude):
                        continue
                    info = tarfile.TarInfo(path.lstrip("/"))
                    info.size = len(self.files[path])
                    info.mode = self.modes.get(path, 0o644)
                    tar.addfile(info, io.BytesIO(self.files[path]))
        return out.getvalue()

    async def remove(self, paths: Sequence[str]) -> None:
        """Drop the files and directories under ``paths``."""
        self._use("remove", " ".join(paths))
        for root in map(_norm, paths):
            self._remove_tree(root)

    def _remove_tree(self, root: str) -> None:
        self.dirs = {d for d in self.dirs if not _under(d, root)}
        for path in [p for p in self.files if _under(p, root)]:
            del self.files[path]

    async def import_(self, archive: bytes, *, dest: str = "/") -> None:
        """Store the archive's directories and regular files under ``dest``, checked first.

        Raises:
            ArchiveError: the archive breaks the safe-extraction rules.
        """
        self._use("import", dest)
        members = validate_archive(archive, dest=_norm(dest))
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
            for info in members:
                path = _norm(posixpath.join(dest, info.name))
                stream = tar.extractfile(info) if info.isreg() else None
                if info.isdir():
                    self.dirs.add(path)
                elif stream is not None:
                    self.files[path] = stream.read()
                    self.modes[path] = info.mode

    async def snapshot(self) -> SandboxSpec:
        """A spec whose sandboxes start with a copy of these files."""
        self._use("snapshot")
        return attrs.evolve(self.spec, image=self.backend.store_snapshot(self))

    async def destroy(self) -> None:
        """Drop the sandbox. Safe to call twice."""
        if not self.destroyed:
            self.backend.record(self._id, "destroy")
        self.destroyed = True


class _AgentView:
    """What agents get: exec and files of a :class:`FakeSandbox`, no control operations."""

    def __init__(self, sandbox: FakeSandbox) -> None:
        self._sandbox = sandbox

    async def exec(
        self,
        command: Command,
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str | int | None = None,
        stdin: bytes | str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
    ) -> ExecResult:
        return await self._sandbox.exec(
            command,
            timeout=timeout,
            cwd=cwd,
            env=env,
            user=user,
            stdin=stdin,
            output_limit=output_limit,
        )

    async def read_file(self, path: str) -> bytes:
        return await self._sandbox.read_file(path)

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None) -> None:
        await self._sandbox.write_file(path, data, mode=mode)

    async def terminal(
        self,
        command: Command | None = None,
        *,
        rows: int = 24,
        cols: int = 80,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> Terminal:
        raise ExecError(
            "the fake backend has no terminals",
            where="FakeBackend",
            fix="test terminal programs on the docker or local backend",
        )


def _norm(path: str) -> str:
    return posixpath.normpath("/" + path.lstrip("/"))


def _under(path: str, root: str) -> bool:
    return root in ("/", path) or path.startswith(root + "/")


def _bytes(data: bytes | str) -> bytes:
    return data.encode() if isinstance(data, str) else data


def _is_redirection(word: str) -> bool:
    return re.match(r"^[0-9]*[<>]", word) is not None


def _operands(arguments: list[str]) -> list[str]:
    """The directories of a ``mkdir`` argument list (``-p``, ``-m MODE`` skipped)."""
    operands: list[str] = []
    skip = False
    for word in arguments:
        if skip:
            skip = False
        elif word == "-m":
            skip = True
        elif not word.startswith("-"):
            operands.append(word)
    return operands
