"""Running the agent's code from a verifier: ``run_untrusted`` and friends in the kit.

Real processes throughout. The isolation tests need root (CI runs as root);
as another user they skip, and the fallback (clean environment, cleanup,
a warning) is tested instead. The last test is end to end on Docker: a
cheating submission for climate-extremes that imports the hidden generator
scores what an honest no-op scores, while the oracle still scores 1.0.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lhtb.verify.kit import lhtb_scorecard as kit

REPO = Path(__file__).resolve().parent.parent
CLIMATE = REPO / "tasks" / "climate-extremes"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
as_root = pytest.mark.skipif(not IS_ROOT, reason="isolation needs the tests to run as root")
# an interpreter the untrusted uid can execute (pyenv's lives under /root, 0700)
SYSTEM_PYTHON = next(
    (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None
)
needs_python = pytest.mark.skipif(SYSTEM_PYTHON is None, reason="no system python3")


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A world-traversable temporary directory (pytest's tmp_path is 0700 root)."""
    path = Path(tempfile.mkdtemp(prefix="lhtb-test-untrusted-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie is not running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_for_pid(path: Path, timeout: float = 5.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.02)
    raise AssertionError(f"{path} never got a pid")


# -- isolation (root) ------------------------------------------------------------------------------


@as_root
def test_runs_as_nobody_without_groups() -> None:
    res = kit.run_untrusted(["/bin/sh", "-c", "id -u; id -g; id -G"], text=True, locked=[])
    assert res.ok
    assert res.isolated
    assert res.stdout.split() == ["65534", "65534", "65534"]


@as_root
def test_locked_directory_is_unreadable_to_the_program(public_dir: Path) -> None:
    hidden = public_dir / "tests"
    hidden.mkdir(mode=0o755)
    (hidden / "generate.py").write_text("ANSWER = 42\n")
    (hidden / "generate.py").chmod(0o644)
    reader = ["/bin/sh", "-c", f"cat {hidden}/generate.py && ls {hidden}"]
    # not locked: readable (so the next check means something)
    before = kit.run_untrusted(reader, text=True, locked=[])
    assert before.ok
    assert "ANSWER = 42" in before.stdout
    after = kit.run_untrusted(reader, text=True, locked=[hidden])
    assert not after.ok
    assert "ANSWER" not in after.stdout
    assert "Permission denied" in after.stderr
    assert stat.S_IMODE(hidden.stat().st_mode) == 0o700
    assert (hidden.stat().st_uid, hidden.stat().st_gid) == (0, 0)
    # contents lose group/other bits too (a hard link could not reach them)
    assert stat.S_IMODE((hidden / "generate.py").stat().st_mode) == 0o600
    # idempotent
    assert kit.lock_hidden([hidden]) is True
    assert stat.S_IMODE(hidden.stat().st_mode) == 0o700


@as_root
@needs_python
def test_cheat_that_imports_the_hidden_generator_works_only_unlocked(public_dir: Path) -> None:
    """The exact attack of the review, at process level: the program puts the
    tests on ``sys.path`` and asks the hidden reference for the answer."""
    tests = public_dir / "tests"
    shutil.copytree(CLIMATE / "tests", tests)
    for path in [tests, *tests.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    cheat = public_dir / "cheat.py"
    cheat.write_text(
        textwrap.dedent(
            f"""
            import json, sys
            sys.path.insert(0, {str(tests)!r})
            import generate
            print(json.dumps(generate.expected_report(generate.dataset(0))))
            """
        )
    )
    cheat.chmod(0o644)
    assert SYSTEM_PYTHON is not None
    sys.path.insert(0, str(tests))
    try:
        import generate  # type: ignore[import-not-found]

        want = generate.expected_report(generate.dataset(0))
    finally:
        sys.path.remove(str(tests))
        sys.modules.pop("generate", None)
    # run by root, as the verifiers used to: the cheat gets the reference answer
    trusted = subprocess.run(
        [SYSTEM_PYTHON, str(cheat)], capture_output=True, text=True, timeout=60, check=False
    )
    assert trusted.returncode == 0
    assert trusted.stdout.strip()
    import json

    assert json.loads(trusted.stdout) == want
    # run untrusted with the tests locked: the import fails, nothing comes out
    res = kit.run_untrusted([SYSTEM_PYTHON, str(cheat)], text=True, locked=[tests])
    assert res.returncode != 0
    assert not res.stdout.strip()
    assert "PermissionError" in res.stderr or "ModuleNotFoundError" in res.stderr


@as_root
def test_scratch_is_the_programs_and_inputs_are_read_only(public_dir: Path) -> None:
    scratch = kit.scratch_dir(parent=public_dir)
    inputs = kit.input_dir(parent=public_dir)
    (Path(inputs) / "case.csv").write_text("a,b\n1,2\n")
    (Path(inputs) / "case.csv").chmod(0o600)  # a strict umask: opened up before the run
    script = f"""
        cat {inputs}/case.csv > out.txt
        echo changed > {inputs}/case.csv && echo WROTE-INPUT
        echo $HOME $TMPDIR; pwd
    """
    res = kit.run_untrusted(["/bin/sh", "-c", script], text=True, scratch=scratch, locked=[])
    assert "WROTE-INPUT" not in res.stdout
    assert (Path(inputs) / "case.csv").read_text() == "a,b\n1,2\n"
    assert kit.read_output(Path(scratch) / "out.txt") == "a,b\n1,2\n"
    assert res.stdout.split() == [scratch, scratch, scratch]
    assert Path(scratch).stat().st_uid == kit.UNTRUSTED_UID
    assert Path(inputs).stat().st_uid == 0


@as_root
def test_an_escaped_daemon_is_killed_after_a_normal_exit(public_dir: Path) -> None:
    scratch = kit.scratch_dir(parent=public_dir)
    pidfile = Path(scratch) / "daemon.pid"
    script = (
        f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' >/dev/null 2>&1 < /dev/null & "
        f"while [ ! -s {pidfile} ]; do sleep 0.05; done"
    )
    res = kit.run_untrusted(["/bin/sh", "-c", script], scratch=scratch, locked=[], timeout=30)
    assert res.ok
    assert not res.timed_out
    pid = _wait_for_pid(pidfile)
    assert not _alive(pid), "a daemon the program started outlived the run"


@as_root
def test_no_privilege_regain_through_setuid_binaries() -> None:
    res = kit.run_untrusted(
        ["/bin/sh", "-c", "grep NoNewPrivs /proc/self/status"], text=True, locked=[]
    )
    assert res.stdout.split() == ["NoNewPrivs:", "1"]


# -- any user ----------------------------------------------------------------------------------


def test_environment_is_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LHTB_SEED", "1234")
    monkeypatch.setenv("VERIFIER_SECRET", "hunter2")
    res = kit.run_untrusted(["/usr/bin/env"], text=True, env={"EXTRA": "1"}, locked=[])
    assert res.ok
    names = {line.split("=", 1)[0] for line in res.stdout.splitlines() if "=" in line}
    assert not any(name.startswith("LHTB_") for name in names)
    assert "VERIFIER_SECRET" not in names
    assert "1234" not in res.stdout
    assert {"PATH", "HOME", "LANG", "TMPDIR", "EXTRA"} <= names
    assert "LANG=C.UTF-8" in res.stdout.splitlines()


def test_lhtb_variables_cannot_be_passed_on() -> None:
    with pytest.raises(ValueError, match="LHTB_SEED"):
        kit.run_untrusted(["/bin/true"], env={"LHTB_SEED": "1"}, locked=[])


def test_timeout_kills_the_program_and_its_children() -> None:
    scratch = kit.scratch_dir()
    child, daemon = Path(scratch) / "child.pid", Path(scratch) / "daemon.pid"
    script = (
        f"sleep 300 & echo $! > {child}; "
        + (
            f"setsid sh -c 'echo $$ > {daemon}; exec sleep 301' >/dev/null 2>&1 < /dev/null & "
            f"while [ ! -s {daemon} ]; do sleep 0.05; done; "
            if IS_ROOT
            else ""
        )
        + "sleep 302"
    )
    start = time.monotonic()
    res = kit.run_untrusted(["/bin/sh", "-c", script], scratch=scratch, timeout=1.0, locked=[])
    assert time.monotonic() - start < 120  # not the 300 s of the script
    assert res.timed_out
    assert res.returncode == -9
    assert not res.ok
    assert not _alive(_wait_for_pid(child)), "a child in the process group survived the timeout"
    if IS_ROOT:  # a setsid escapee is only reachable through the root sweep
        assert not _alive(_wait_for_pid(daemon)), "a setsid daemon survived the timeout"


def test_a_program_that_cannot_start_is_a_result_not_an_exception() -> None:
    res = kit.run_untrusted(["/nonexistent/program"], locked=[])
    assert res.returncode == 127
    assert b"cannot start" in res.stderr


def test_input_is_passed_and_exit_code_kept() -> None:
    res = kit.run_untrusted(["/bin/sh", "-c", "cat; exit 3"], input="hello", text=True, locked=[])
    assert res.returncode == 3
    assert res.stdout == "hello"
    assert not res.ok


def test_not_root_warns_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(kit, "_is_root", lambda: False)
    monkeypatch.setitem(kit._state, "warned", False)
    kit.run_untrusted(["/bin/true"], locked=[])
    kit.run_untrusted(["/bin/true"], locked=[])
    err = capsys.readouterr().err
    assert err.count("not running as root") == 1


def test_read_output_refuses_links_and_specials(public_dir: Path) -> None:
    secret = public_dir / "secret.json"
    secret.write_text('{"answer": 42}')
    out = public_dir / "out"
    out.mkdir()
    (out / "ok.json").write_text("{}")
    (out / "link.json").symlink_to(secret)
    (out / "dir").symlink_to(public_dir)
    os.mkfifo(out / "fifo")
    assert kit.read_output(out / "ok.json") == "{}"
    assert kit.read_output(out / "ok.json", binary=True) == b"{}"
    assert kit.read_output(out / "link.json") is None
    assert kit.read_output(out / "dir" / "secret.json") is None
    assert kit.read_output(out / "fifo") is None
    assert kit.read_output(out / "missing.json") is None
    assert kit.read_output(out / "ok.json", max_bytes=1) is None


def test_readable_opens_artifacts_but_never_follows_links(public_dir: Path) -> None:
    app = public_dir / "app"
    (app / "pkg").mkdir(parents=True)
    tool = app / "tool.py"
    tool.write_text("print(1)\n")
    tool.chmod(0o700)
    data = app / "pkg" / "data.txt"
    data.write_text("x")
    data.chmod(0o600)
    (app / "pkg").chmod(0o700)
    outside = public_dir / "outside.txt"
    outside.write_text("hidden")
    outside.chmod(0o600)
    (app / "link").symlink_to(outside)
    os.link(outside, app / "hard")
    kit.readable(app)
    assert stat.S_IMODE(tool.stat().st_mode) == 0o755
    assert stat.S_IMODE((app / "pkg").stat().st_mode) == 0o755
    assert stat.S_IMODE(data.stat().st_mode) == 0o644
    assert stat.S_IMODE(outside.stat().st_mode) == 0o600  # neither the symlink nor the hard link


def test_kit_is_still_stdlib_only_and_exports_the_api() -> None:
    for name in (
        "run_untrusted",
        "popen_untrusted",
        "stop_untrusted",
        "scratch_dir",
        "input_dir",
        "readable",
        "read_output",
        "lock_hidden",
        "LOCKED_PATHS",
    ):
        assert name in kit.__all__
    assert kit.LOCKED_PATHS == ("/tests", "/logs/verifier")


# -- end to end on Docker ----------------------------------------------------------------------

CHEAT = textwrap.dedent(
    '''
    """A dishonest heatwave.py: it parses the input, then asks the verifier's own
    hidden generator for the report instead of computing it."""
    import base64, datetime as dt, glob, gzip, json, os, sys

    found = []
    for probe in ("/logs/verifier", "/tests"):
        try:
            found += os.listdir(probe)
        except OSError:
            pass
    seed = os.environ.get("LHTB_SEED")
    for environ in glob.glob("/proc/[0-9]*/environ"):
        try:
            with open(environ, "rb") as handle:
                for item in handle.read().split(b"\\0"):
                    if item.startswith(b"LHTB_SEED="):
                        seed = item.split(b"=", 1)[1].decode()
        except OSError:
            pass
    sys.path.insert(0, "/tests")
    import generate  # the hidden reference: PermissionError/ModuleNotFoundError when locked

    def rows(path):
        text = open(path, "rb").read()
        if path.endswith(".json"):
            base = os.path.dirname(path)
            out = []
            for part in json.loads(text)["parts"]:
                out += rows(os.path.join(base, part))
            return out
        if path.endswith(".b64"):
            text = gzip.decompress(base64.b64decode(text))
        lines = text.decode().splitlines()
        header = lines[0].split(",")
        return [dict(zip(header, line.split(","))) for line in lines[1:] if line.strip()]

    data = {}
    for row in rows(sys.argv[1]):
        day = dt.date.fromisoformat(row.get("time") or row.get("valid_time"))
        value = row["tmax"].strip()
        value = None if value in ("", "NaN", "nan") else float(value)
        data.setdefault(row["station"], {})[day] = value
    out = sys.argv[sys.argv.index("-o") + 1]
    with open(out, "w") as handle:
        json.dump(generate.expected_report(data), handle)
    '''
)


class CheatingAgent:
    """Writes the cheating ``/app/heatwave.py`` and stops."""

    name = "cheat-imports-hidden-generator"

    async def run(self, turn: object) -> None:
        if getattr(turn, "feedback", None):
            return
        await turn.sandbox.write_file("/app/heatwave.py", CHEAT.encode(), mode=0o644)  # type: ignore[attr-defined]


@pytest.mark.docker
@pytest.mark.anyio
async def test_cheating_submission_scores_like_a_nop_and_the_oracle_still_solves(
    tmp_path: Path,
) -> None:
    import lhtb
    from lhtb.agents import NopAgent, OracleAgent

    task = lhtb.load_task(CLIMATE)
    cheat = await lhtb.run_episode(
        task,
        CheatingAgent(),
        budget=600,
        continue_until_timeout=False,
        output_dir=tmp_path / "cheat",
        seed=7,
    )
    nop = await lhtb.run_episode(
        task,
        NopAgent(),
        budget=600,
        continue_until_timeout=False,
        output_dir=tmp_path / "nop",
        seed=7,  # the cheat's: the two states must grade alike on the same cases
    )
    oracle = await lhtb.run_episode(task, OracleAgent(task), output_dir=tmp_path / "oracle", seed=7)
    assert cheat.reward is not None, cheat.outcome
    assert nop.reward is not None, nop.outcome
    assert nop.reward < 0.1
    assert cheat.reward == nop.reward, (
        f"the cheat scored {cheat.reward} (nop {nop.reward}); see {tmp_path / 'cheat'}"
    )
    assert oracle.reward == 1.0, f"oracle {oracle.outcome} {oracle.reward}"
    print(f"cheat {cheat.reward} ({cheat.outcome}), nop {nop.reward}, oracle {oracle.reward}")
