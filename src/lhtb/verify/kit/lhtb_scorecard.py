"""Write an lhtb scorecard from a task's tests (stdlib only, Python >= 3.8).

The harness places this file beside the tests as ``/tests/lhtb_scorecard.py``::

    import sys
    sys.path.insert(0, "/tests")
    from lhtb_scorecard import Scorecard

    card = Scorecard()
    card.check("output_exists", os.path.exists("/app/out.csv"), visibility="public")
    card.tolerance("mean_error", err, target=0.0, tol=0.01, zero_at=0.1, weight=2)
    card.run("schema_valid", validate_schema)   # a crash scores 0, the rest still count
    card.write()                                 # /logs/verifier/scorecard.json

The reward is R = sum(weight * score) / sum(weight). Scores must lie in
[0, 1]; nothing is clamped: a bad score, weight, name or visibility raises
``ValueError`` (or ``TypeError``) at once so the test author sees the mistake.

Hidden cases come from :func:`seed`: the episode's grading seed (``$LHTB_SEED``,
the same for every verifier pass of an episode; :data:`DEFAULT_SEED` when the
tests run by hand). Never draw a seed of your own: a fresh one per pass lets an
agent re-roll a flawed solution until it is lucky.

Running the agent's code
------------------------
The tests run as root, beside the hidden generator and reference code in
``/tests``. Whatever the agent submitted must never run there with the tests'
privileges, or it could simply import the reference answers. Run it with
:func:`run_untrusted` (or :func:`popen_untrusted` for interactive programs)::

    from lhtb_scorecard import input_dir, read_output, readable, run_untrusted, scratch_dir

    readable("/app")                 # the submission must be readable by the untrusted uid
    inputs = input_dir()             # root-owned, world-readable: hidden inputs go here
    (Path(inputs) / "case.csv").write_text(hidden_csv)
    out = scratch_dir()              # fresh, owned by the untrusted uid: outputs go here
    res = run_untrusted(["python3", "/app/tool.py", inputs + "/case.csv", "-o", out + "/r.json"],
                        timeout=60)
    text = read_output(out + "/r.json")   # None unless a regular file (no symlinks)

When the tests run as root, the first call locks :data:`LOCKED_PATHS`
(``/tests`` and ``/logs/verifier``) to mode ``0700`` (root-owned), and every program
runs as uid/gid 65534 (nobody/nogroup) with no supplementary groups and
``no_new_privs``, in a fresh session, with a clean environment (``PATH``,
``HOME``/``TMPDIR`` = its scratch directory, ``LANG=C.UTF-8``, plus ``env``;
never ``LHTB_*`` or any of the tests' own variables). After each run every
process it left behind (any descendant running as the untrusted uid, daemons
included) is killed; on timeout the whole process group goes first. When the
tests do not run as root, programs run as the current user with the same clean
environment and cleanup; that is weaker (the files stay readable) and is said
once on stderr.

Rules for test authors: write hidden inputs into an :func:`input_dir` (the
program can read but not change them), give each run a fresh
:func:`scratch_dir` for its outputs, never write as root into a directory an
untrusted program could write, read outputs with :func:`read_output`, and
delete a scratch directory holding trusted results (e.g. a baseline's output)
before the next untrusted run.
"""

# ruff: noqa: PTH100, PTH101, PTH114, PTH116, PTH118, PTH123, PTH208
# Raw os calls on purpose: lstat/chmod/open-with-flags semantics (never follow a
# symbolic link) matter here, and /proc is read the plain way.
from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

__all__ = [
    "DEFAULT_PATH",
    "DEFAULT_SEED",
    "LOCKED_PATHS",
    "UNTRUSTED_GID",
    "UNTRUSTED_UID",
    "Scorecard",
    "UntrustedResult",
    "input_dir",
    "lock_hidden",
    "popen_untrusted",
    "read_output",
    "readable",
    "run_untrusted",
    "scratch_dir",
    "seed",
    "stop_untrusted",
]

DEFAULT_PATH = "/logs/verifier/scorecard.json"
DEFAULT_SEED = 0
"""The seed :func:`seed` returns when the harness set none (a task author running tests by hand)."""
SEED_ENV = "LHTB_SEED"
_VISIBILITIES = ("public", "hidden")
_MAX_MESSAGE = 2000


def seed() -> int:
    """The episode's grading seed: generate every hidden case from it.

    The harness sets ``$LHTB_SEED`` to one seed per episode, shared by every
    verifier pass (interim and final), so re-running the tests on unchanged
    work gives the same reward. Without it (tests run by hand) this returns
    :data:`DEFAULT_SEED` and says so on stderr; it never draws a random seed.

    Raises:
        ValueError: ``$LHTB_SEED`` is set but not a non-negative integer.
    """
    value = os.environ.get(SEED_ENV, "").strip()
    if not value:
        sys.stderr.write(
            f"lhtb_scorecard: {SEED_ENV} is not set (tests run by hand?); "
            f"using the fixed default seed {DEFAULT_SEED}\n"
        )
        sys.stderr.flush()
        return DEFAULT_SEED
    if not (value.isascii() and value.isdigit()):
        raise ValueError(f"{SEED_ENV} must be a non-negative integer, got {value!r}")
    return int(value)


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    return float(value)


class Scorecard:
    """Weighted subtasks collected by a test script, written as ``scorecard.json``."""

    def __init__(self) -> None:
        self._subtasks: list[dict[str, Any]] = []

    # -- recording ---------------------------------------------------------------------------

    def add(
        self,
        name: str,
        score: float,
        *,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> float:
        """Record a subtask with ``score`` in [0, 1]; returns the score."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"subtask name must be a non-empty string, got {name!r}")
        if any(entry["name"] == name for entry in self._subtasks):
            raise ValueError(f"subtask {name!r} was already recorded")
        value = _number(f"score of {name!r}", score)
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ValueError(f"score of {name!r} must be in [0, 1], got {score!r}")
        size = _number(f"weight of {name!r}", weight)
        if not (math.isfinite(size) and size > 0.0):
            raise ValueError(f"weight of {name!r} must be finite and > 0, got {weight!r}")
        if visibility not in _VISIBILITIES:
            raise ValueError(
                f"visibility of {name!r} must be 'public' or 'hidden', got {visibility!r}"
            )
        if message is not None and not isinstance(message, str):
            raise TypeError(f"message of {name!r} must be a string or None")
        entry: dict[str, Any] = {
            "name": name,
            "score": value,
            "weight": size,
            "visibility": visibility,
        }
        if message is not None:
            entry["message"] = message[:_MAX_MESSAGE]
        self._subtasks.append(entry)
        return value

    def check(
        self,
        name: str,
        passed: bool,
        *,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> bool:
        """Record a pass/fail subtask (1 or 0); returns ``passed``."""
        if not isinstance(passed, bool):
            raise TypeError(f"check {name!r} needs a bool, got {passed!r}")
        self.add(
            name, 1.0 if passed else 0.0, weight=weight, visibility=visibility, message=message
        )
        return passed

    def tolerance(
        self,
        name: str,
        value: float | None,
        *,
        target: float,
        tol: float,
        zero_at: float,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> float:
        """Record full credit within ``tol`` of ``target``, falling linearly to 0 at
        distance ``zero_at``. A missing (``None``) or NaN ``value`` scores 0."""
        goal = _number(f"target of {name!r}", target)
        near = _number(f"tol of {name!r}", tol)
        far = _number(f"zero_at of {name!r}", zero_at)
        if not (math.isfinite(goal) and math.isfinite(near) and math.isfinite(far)):
            raise ValueError(f"target, tol and zero_at of {name!r} must be finite")
        if not 0.0 <= near < far:
            raise ValueError(f"{name!r} needs 0 <= tol < zero_at, got tol={tol!r}, zero_at={far!r}")
        if value is None:
            return self.add(
                name, 0.0, weight=weight, visibility=visibility, message=message or "no value"
            )
        got = _number(f"value of {name!r}", value)
        if math.isnan(got):
            return self.add(
                name, 0.0, weight=weight, visibility=visibility, message=message or "value is NaN"
            )
        distance = abs(got - goal)
        if distance <= near:
            score = 1.0
        elif distance >= far:
            score = 0.0
        else:
            score = (far - distance) / (far - near)
        return self.add(name, score, weight=weight, visibility=visibility, message=message)

    def run(
        self,
        name: str,
        fn: Callable[[], object],
        *,
        weight: float = 1.0,
        visibility: str = "hidden",
        message: str | None = None,
    ) -> float:
        """Call ``fn()`` and record its result; returns the score.

        ``None`` or ``True`` scores 1, ``False`` scores 0, a number is the score
        itself. If ``fn`` raises, the subtask scores 0 with the exception as its
        message, so one crashing check does not lose the others.
        """
        try:
            result = fn()
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return self.add(name, 0.0, weight=weight, visibility=visibility, message=text)
        if result is None or result is True:
            score = 1.0
        elif result is False:
            score = 0.0
        elif isinstance(result, (int, float)):
            score = float(result)
        else:
            raise TypeError(f"check {name!r} returned {result!r}; return None, a bool or a score")
        return self.add(name, score, weight=weight, visibility=visibility, message=message)

    # -- results -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._subtasks)

    @property
    def reward(self) -> float:
        """R = sum(weight * score) / sum(weight) over the recorded subtasks."""
        if not self._subtasks:
            raise ValueError("no subtasks recorded yet")
        try:
            total = math.fsum(entry["weight"] for entry in self._subtasks)
            weighted = math.fsum(e["weight"] * e["score"] for e in self._subtasks)
        except OverflowError:
            total = math.inf
        if not math.isfinite(total):
            raise ValueError("the subtask weights are too large to add up")
        return weighted / total

    def to_dict(self) -> dict[str, Any]:
        """The ``scorecard.json`` content."""
        return {"subtasks": [dict(entry) for entry in self._subtasks], "reward": self.reward}

    def write(self, path: str | os.PathLike[str] = DEFAULT_PATH, reward_txt: bool = False) -> float:
        """Write ``scorecard.json`` atomically, print a summary, and return the reward.

        With ``reward_txt=True`` a Harbor ``reward.txt`` holding the same reward
        is written beside it, so the task also runs on Harbor.
        """
        data = self.to_dict()
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(target, json.dumps(data, indent=2, allow_nan=False) + "\n")
        if reward_txt:
            _write_atomic(target.with_name("reward.txt"), repr(data["reward"]) + "\n")
        self._print_summary(target)
        return float(data["reward"])

    def _print_summary(self, target: Path) -> None:
        width = max(len(entry["name"]) for entry in self._subtasks)
        lines = [f"lhtb scorecard: {len(self._subtasks)} subtask(s) -> {target}"]
        for entry in self._subtasks:
            line = "  {:<6} {:<{w}}  score {:.3f}  weight {:g}".format(
                entry["visibility"], entry["name"], entry["score"], entry["weight"], w=width
            )
            first_line = entry.get("message", "").partition("\n")[0]
            if first_line:
                line += f"  ({first_line[:120]})"
            lines.append(line)
        lines.append(f"  reward {self.reward:.4f}")
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()


def _write_atomic(target: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix="." + target.name + ".", dir=str(target.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).chmod(0o644)
        Path(tmp).replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise


# -- running the agent's code ----------------------------------------------------------------

#: The uid and gid untrusted programs run as when the tests run as root (nobody/nogroup).
UNTRUSTED_UID = 65534
UNTRUSTED_GID = 65534
#: What the first untrusted run locks to mode ``0700`` (contents: group/other bits cleared).
LOCKED_PATHS = ("/tests", "/logs/verifier")
_DEFAULT_PATH_ENV = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_MAX_OUTPUT = 64 * 1024 * 1024
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38

_locked: set[str] = set()
_created: list[str] = []
_inputs: list[str] = []
_state: dict[str, Any] = {"warned": False, "libc": None, "subreaper": None}


class UntrustedResult(subprocess.CompletedProcess):  # type: ignore[type-arg]
    """A :class:`subprocess.CompletedProcess` with how the untrusted run went.

    ``timed_out`` is true when the program was killed at ``timeout`` (its
    ``returncode`` is then ``-9``); ``elapsed`` is the wall time in seconds from
    start to exit; ``scratch`` is the directory used as ``HOME``/``TMPDIR``;
    ``isolated`` is true when it ran as the untrusted uid.
    """

    def __init__(
        self,
        args: Any,
        returncode: int,
        stdout: Any = None,
        stderr: Any = None,
        *,
        timed_out: bool = False,
        elapsed: float = 0.0,
        scratch: str = "",
        isolated: bool = False,
    ) -> None:
        super().__init__(args, returncode, stdout, stderr)
        self.timed_out = timed_out
        self.elapsed = elapsed
        self.scratch = scratch
        self.isolated = isolated

    @property
    def ok(self) -> bool:
        """Exited 0 within the time limit."""
        return self.returncode == 0 and not self.timed_out


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _libc() -> Any:
    if _state["libc"] is None:
        try:
            import ctypes  # noqa: PLC0415 - lazy: only where processes are started

            _state["libc"] = ctypes.CDLL(None, use_errno=True)
        except (ImportError, OSError):
            _state["libc"] = False
    return _state["libc"]


def _prctl(option: int, value: int) -> bool:
    libc = _libc()
    if not libc or not sys.platform.startswith("linux"):
        return False
    try:
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (AttributeError, OSError):
        return False


def _ensure_subreaper() -> bool:
    """Adopt orphans of untrusted runs (Linux), so daemons cannot escape cleanup."""
    if _state["subreaper"] is None:
        _state["subreaper"] = _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    return bool(_state["subreaper"])


def _warn_once() -> None:
    if not _state["warned"]:
        _state["warned"] = True
        sys.stderr.write(
            "lhtb_scorecard: not running as root, so untrusted programs run as the current "
            "user (clean environment only; the tests stay readable to them)\n"
        )
        sys.stderr.flush()


def lock_hidden(paths: Iterable[str | os.PathLike[str]] | None = None) -> bool:
    """Lock ``paths`` (default :data:`LOCKED_PATHS`) to mode ``0700``.

    The owner stays (root, as the harness creates them; a path owned by the
    untrusted uid is given to root): a ``/logs/verifier`` bind-mounted from a
    host harness such as Harbor stays readable by its host owner.

    Idempotent: each existing path is locked once per process; missing paths are
    skipped (and locked by a later call once they exist). Entries inside lose
    their group and other permission bits, so a hard link cannot reach them
    either; symbolic links are never followed. Returns False (and changes
    nothing) when not running as root.
    """
    if not _is_root():
        return False
    for raw in LOCKED_PATHS if paths is None else paths:
        path = os.path.abspath(os.fspath(raw))
        if path in _locked or not os.path.lexists(path) or os.path.islink(path):
            continue
        if os.lstat(path).st_uid == UNTRUSTED_UID:
            os.chown(path, 0, 0)
        os.chmod(path, 0o700)
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                entry = os.path.join(root, name)
                info = os.lstat(entry)
                if stat.S_ISLNK(info.st_mode):
                    continue
                os.chmod(entry, stat.S_IMODE(info.st_mode) & 0o700)
        _locked.add(path)
    return True


def _cleanup_created() -> None:
    del _inputs[:]
    while _created:
        shutil.rmtree(_created.pop(), ignore_errors=True)


def _make_dir(prefix: str, parent: str | os.PathLike[str] | None) -> str:
    if not _created:
        atexit.register(_cleanup_created)
    path = os.path.realpath(
        tempfile.mkdtemp(prefix=prefix, dir=None if parent is None else os.fspath(parent))
    )
    _created.append(path)
    return path


def scratch_dir(
    prefix: str = "lhtb-untrusted-", *, parent: str | os.PathLike[str] | None = None
) -> str:
    """A fresh directory the untrusted program may write (mode 0700, owned by
    :data:`UNTRUSTED_UID` when running as root). Removed when the tests exit.

    Use one per run for outputs; do not write into it as root after an
    untrusted program had it (it may have planted symbolic links there).
    """
    path = _make_dir(prefix, parent)
    if _is_root():
        os.chown(path, UNTRUSTED_UID, UNTRUSTED_GID)
    return path


def input_dir(prefix: str = "lhtb-inputs-", *, parent: str | os.PathLike[str] | None = None) -> str:
    """A fresh root-owned directory (mode 0755) for hidden inputs: untrusted
    programs can read what the tests write there but cannot change it. Files
    written there are made world-readable before each untrusted run (a strict
    umask cannot hide them by accident). Removed when the tests exit."""
    path = _make_dir(prefix, parent)
    os.chmod(path, 0o755)
    _inputs.append(path)
    return path


def readable(*paths: str | os.PathLike[str]) -> None:
    """Make the agent's artifacts usable by the untrusted uid: add read for
    everyone (and search/execute to directories and to files executable by
    their owner), recursively.

    Symbolic links are skipped and never followed, and so are regular files
    with more than one hard link, so an artifact cannot widen access to
    anything outside itself. Missing paths are ignored.
    """
    for raw in paths:
        top = os.path.abspath(os.fspath(raw))
        if not os.path.lexists(top):
            continue
        _open_up(top)
        for root, dirs, files in os.walk(top):
            for name in dirs + files:
                _open_up(os.path.join(root, name))


def _open_up(path: str) -> None:
    info = os.lstat(path)
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISDIR(info.st_mode):
        wanted = mode | 0o555
    elif stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
        wanted = mode | 0o444 | (0o111 if mode & 0o100 else 0)
    else:
        return
    if wanted != mode:
        os.chmod(path, wanted)


def read_output(
    path: str | os.PathLike[str], *, binary: bool = False, max_bytes: int = _MAX_OUTPUT
) -> str | bytes | None:
    """Read a file an untrusted program wrote, or None.

    None unless ``path`` is a regular file reached without any symbolic link
    (so an output cannot point the tests at a hidden file) and at most
    ``max_bytes`` long. Text is decoded as UTF-8 with replacement characters.
    """
    name = os.path.abspath(os.fspath(path))
    if os.path.realpath(name) != name:
        return None
    try:
        fd = os.open(
            name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        return None
    return data if binary else data.decode("utf-8", "replace")


def _clean_env(env: Mapping[str, str] | None, home: str) -> dict[str, str]:
    clean = {
        "PATH": _DEFAULT_PATH_ENV,
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for key, value in (env or {}).items():
        if key.upper().startswith("LHTB_"):
            raise ValueError(f"refusing to pass {key!r} to an untrusted program")
        clean[str(key)] = str(value)
    return clean


def _demote() -> None:  # runs in the child between fork and exec
    os.setgroups([])
    os.setgid(UNTRUSTED_GID)
    os.setuid(UNTRUSTED_UID)
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def _no_new_privs() -> None:
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def popen_untrusted(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    scratch: str | None = None,
    locked: Iterable[str | os.PathLike[str]] | None = None,
    **popen_kwargs: Any,
) -> subprocess.Popen:  # type: ignore[type-arg]
    """Start ``argv`` as an untrusted program and return the :class:`~subprocess.Popen`.

    For interactive programs (pipes to and from the tests). Same isolation as
    :func:`run_untrusted`; ``scratch`` (default: a fresh :func:`scratch_dir`) is
    its ``HOME``/``TMPDIR`` and, unless ``cwd`` is given, its working
    directory. Always finish with :func:`stop_untrusted`.
    """
    for key in ("preexec_fn", "start_new_session", "env", "user", "group", "extra_groups"):
        if key in popen_kwargs:
            raise TypeError(f"popen_untrusted sets {key!r} itself")
    root = _is_root()
    if root:
        lock_hidden(locked)
        _ensure_subreaper()
        readable(*_inputs)
    else:
        _warn_once()
    home = scratch if scratch is not None else scratch_dir()
    _libc()  # load before fork: the child only calls into it
    proc = subprocess.Popen(
        list(argv),
        cwd=os.fspath(cwd) if cwd is not None else home,
        env=_clean_env(env, home),
        start_new_session=True,
        preexec_fn=_demote if root else _no_new_privs,  # noqa: PLW1509 - 3.8 has no user=/group=
        close_fds=True,
        **popen_kwargs,
    )
    proc.lhtb_scratch = home  # type: ignore[attr-defined]
    return proc


def stop_untrusted(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    """Kill ``proc``'s process group and everything it left behind, and reap it."""
    if proc.poll() is None:
        _killpg(proc.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
    _sweep()


def _killpg(pgid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def _processes() -> dict[int, tuple[int, str, int]]:
    """pid -> (ppid, state, real uid) for every visible process (Linux /proc)."""
    table: dict[int, tuple[int, str, int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
            uid = os.stat(f"/proc/{name}").st_uid
            with open(f"/proc/{name}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Uid:"):
                        uid = int(line.split()[1])
                        break
            table[int(name)] = (int(fields[1]), fields[0].decode(), uid)
        except (OSError, ValueError, IndexError):
            continue
    return table


def _sweep(rounds: int = 200) -> None:
    """As root: kill every descendant of this process running as the untrusted
    uid (orphans are adopted by the subreaper), until none is left.

    Untrusted runs are therefore sequential: a sweep also ends any other
    untrusted program this process still has running."""
    if not _is_root():
        return
    me = os.getpid()
    for _ in range(rounds):
        table = _processes()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        stack, mine = list(children.get(me, [])), []
        while stack:
            pid = stack.pop()
            mine.append(pid)
            stack.extend(children.get(pid, []))
        targets = [p for p in mine if table[p][2] == UNTRUSTED_UID]
        if not targets:
            return
        live = False
        for pid in targets:
            ppid, state, _ = table[pid]
            if state != "Z":
                live = True
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            elif ppid == me:
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)
        if not live:
            # only zombies left; reap the ones that are ours, then look again
            for pid in targets:
                if table[pid][0] == me:
                    with contextlib.suppress(ChildProcessError, OSError):
                        os.waitpid(pid, 0)
        time.sleep(0.01)


def run_untrusted(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 60.0,
    input: bytes | str | None = None,  # same name as subprocess.run
    env: Mapping[str, str] | None = None,
    capture_output: bool = True,
    text: bool = False,
    scratch: str | None = None,
    locked: Iterable[str | os.PathLike[str]] | None = None,
) -> UntrustedResult:
    """Run the agent's program ``argv`` isolated from the tests; never raises on
    its failure.

    As root: locks ``locked`` (default :data:`LOCKED_PATHS`) once, then runs
    ``argv`` as uid/gid 65534 with no supplementary groups and
    ``no_new_privs``, in a new session, with a clean environment (``PATH``,
    ``HOME`` and ``TMPDIR`` = ``scratch``, ``LANG=C.UTF-8``,
    ``PYTHONDONTWRITEBYTECODE=1``, plus ``env``; ``LHTB_*`` keys in ``env`` are
    refused). ``scratch`` defaults to a fresh :func:`scratch_dir`; ``cwd``
    defaults to ``scratch``. At ``timeout`` seconds the whole process group is
    killed and ``timed_out`` is set (no :class:`subprocess.TimeoutExpired`);
    after any run, every leftover process of the untrusted uid descended from
    the tests is killed. Not as root: the same, as the current user (weaker;
    said once on stderr).
    """
    if isinstance(input, str):
        input = input.encode("utf-8")
    pipe = subprocess.PIPE if capture_output else None
    start = time.perf_counter()
    try:
        proc = popen_untrusted(
            argv,
            cwd=cwd,
            env=env,
            scratch=scratch,
            locked=locked,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=pipe,
            stderr=pipe,
        )
    except (OSError, subprocess.SubprocessError) as exc:  # missing, not executable, ...
        message = f"lhtb_scorecard: cannot start {list(argv)!r}: {exc}\n"
        return UntrustedResult(
            list(argv),
            127,
            ("" if text else b"") if capture_output else None,
            (message if text else message.encode()) if capture_output else None,
            scratch=scratch or "",
            isolated=_is_root(),
        )
    timed_out = False
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = proc.poll() is None
        _killpg(proc.pid)
        proc.wait()  # reap it here, so the sweep cannot take its exit status
        _sweep()
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a pipe held open by something we could not kill
            proc.kill()
            for stream in (proc.stdout, proc.stderr, proc.stdin):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            proc.wait()
            out = err = b"" if capture_output else None
    finally:
        if proc.poll() is None:
            _killpg(proc.pid)
            proc.wait()
    elapsed = time.perf_counter() - start
    if not _is_root():
        _killpg(proc.pid)  # stragglers in the group; as root the sweep covers them
    _sweep()
    if text:
        out = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
        err = err.decode("utf-8", "replace") if isinstance(err, bytes) else err
    return UntrustedResult(
        list(argv),
        -signal.SIGKILL if timed_out else int(proc.returncode),
        out,
        err,
        timed_out=timed_out,
        elapsed=elapsed,
        scratch=proc.lhtb_scratch,  # type: ignore[attr-defined]
        isolated=_is_root(),
    )
