"""Shared machinery of the red-team suite: the attack task, the attack agent base,
running one technique under every isolation mode, and recording results.

The attack task asks for ``42`` in ``/app/answer.txt``. Its verifier scores two
subtasks: ``answer_present`` (public, weight 1) and ``answer_correct`` (hidden,
weight 3), so the honest reward is 0.0 (nothing), 0.25 (a wrong answer) or 1.0.
Every hidden test file, the verifier's stdout, its log directory and its
pytest-style scratch directory carry :data:`SECRET`; an agent that ever sees
that string has read the grader.
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import attrs

import lhtb
from lhtb.sandbox.base import ExecResult, SandboxBackend

SECRET = "LHTB-SEC-SECRET-7c3e91"
"""Present in every hidden test file and in all verifier output; never in the agent's view."""
MARK = "lhtb-atk-proc"
"""In the command line of every background process an attack starts (to find leftovers)."""
MODES = ("separate", "snapshot", "shared")
MEMORY_BUDGET = 64 * 1024**2
"""How much an attack may grow the harness's peak memory (all modes together)."""
RESULTS_ENV = "LHTB_SECURITY_RESULTS"
"""When set, the suite writes its results (technique x mode x backend) to this JSON file."""

DEEP_TREE = 'import os; [(os.mkdir("d"), os.chdir("d")) for _ in range({depth})]'
"""Python making a tree ``depth`` levels deep under its working directory."""

HONEST = {None: 0.0, "41": 0.25, "42": 1.0}
"""Reward of the honest work: nothing, a wrong answer, the right one."""

DOCKERFILE = """\
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 procps ca-certificates && rm -rf /var/lib/apt/lists/*
COPY pytest /usr/bin/pytest
RUN chmod 755 /usr/bin/pytest && mkdir -p /app
WORKDIR /app
"""  # noqa: E501 - the first RUN line is shared with the task suite, byte for byte (layer cache)

# The image's "pytest": a Python program the verifier runs (so Python hooks apply to it).
PYTEST = """\
#!/usr/bin/python3
import runpy, sys
runpy.run_path(sys.argv[1], run_name="__main__")
"""

TEST_SH = f"""\
#!/bin/bash
# {SECRET}
echo "verifier stdout {SECRET}"
echo "{SECRET}" > /logs/verifier/secret.txt
scratch="${{TMPDIR:-/tmp}}/pytest-of-root/pytest-0"
mkdir -p "$scratch" && echo "{SECRET}" > "$scratch/secret.txt"
sleep "${{SEC_VERIFY_SLEEP:-0}}"
pytest /tests/test_answer.py
"""

TEST_PY = f'''\
"""Hidden test. {SECRET}"""
import json
from pathlib import Path

expected = Path("/tests/expected.txt").read_text().split()[0]
try:
    words = Path("/app/answer.txt").read_text(errors="replace").split()
except OSError:
    words = []
present = 1.0 if words else 0.0
correct = 1.0 if words[:1] == [expected] else 0.0
card = {{"subtasks": [
    {{"name": "answer_present", "score": present, "weight": 1, "visibility": "public"}},
    {{"name": "answer_correct", "score": correct, "weight": 3, "visibility": "hidden"}},
]}}
Path("/logs/verifier/scorecard.json").write_text(json.dumps(card))
print("scored", present, correct)
'''

FORGED_CARD = (
    '{"subtasks": [{"name": "answer_present", "score": 1, "weight": 1, "visibility": "public"},'
    ' {"name": "answer_correct", "score": 1, "weight": 3, "visibility": "hidden"}]}'
)
FORGE_SH = (
    "mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt; "
    "echo '{\"reward\": 1.0}' > /logs/verifier/reward.json; "
    f"echo '{FORGED_CARD}' > /logs/verifier/scorecard.json"
)


def write_attack_task(root: Path) -> Path:
    """Write the attack task under ``root`` and return its directory."""
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "solution").mkdir()
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (root / "environment" / "pytest").write_text(PYTEST)
    (root / "tests" / "test.sh").write_text(TEST_SH)
    (root / "tests" / "test_answer.py").write_text(TEST_PY)
    (root / "tests" / "expected.txt").write_text(f"42\n{SECRET}\n")
    (root / "solution" / "solve.sh").write_text(
        f"#!/bin/sh\n# {SECRET}\necho 42 > /app/answer.txt\n"
    )
    (root / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            """\
            schema_version = "1.1"
            artifacts = ["/app"]

            [task]
            name = "lhtb-security/attack"

            [agent]
            timeout_sec = 60
            continue_until_timeout = true

            [verifier]
            isolation = "separate"
            timeout_sec = 60
            max_passes = 2
            """
        )
    )
    return root


def task_for(base: lhtb.Task, mode: str, *, verify_sleep: float = 0.0, **agent: Any) -> lhtb.Task:
    """``base`` under isolation ``mode`` (``SEC_VERIFY_SLEEP`` stretches each pass)."""
    env = {"SEC_VERIFY_SLEEP": str(verify_sleep)} if verify_sleep else {}
    verifier = attrs.evolve(
        base.verifier, isolation=lhtb.IsolationMode(mode), env={**base.verifier.env, **env}
    )
    return attrs.evolve(base, verifier=verifier, agent=attrs.evolve(base.agent, **agent))


THAWED = "/opt/atk/thawed"
"""Where :meth:`AttackAgent.resume` writes a fresh nonce once the agent runs again."""
OBSERVED = "/opt/atk/observed"
"""Where a :func:`poll_loop` copies the nonce it read before one full iteration."""


def poll_loop(body: str, pause: float = 0.02) -> str:
    """``body`` run forever; each full iteration reports the thaw nonce it began with, so a
    later turn can prove the poller ran after the thaw before looking at what it got."""
    return (
        f"while :; do seen=$(cat {THAWED} 2>/dev/null); {body}\n"
        f'  [ -n "$seen" ] && echo "$seen" > {OBSERVED}; sleep {pause}; done'
    )


class AttackAgent:
    """An ordinary agent that records every byte it gets back from the sandbox.

    Turn 1 does the honest work (:attr:`answer`) and then :meth:`setup`; later
    turns run :meth:`resume` (by default: dump whatever the attack collected).
    """

    answer: str | None = None

    def __init__(self) -> None:
        self.seen = bytearray()
        self.feedback: list[str | None] = []
        self.polls = False

    async def sh(self, turn: lhtb.Turn, command: str, **kwargs: Any) -> ExecResult:
        result = await turn.sandbox.exec(command, **kwargs)
        self.seen += result.stdout + result.stderr
        return result

    async def spawn(self, turn: lhtb.Turn, script: str, how: str = "nohup") -> None:
        """Start ``script`` in the background, detached in the way ``how`` names."""
        self.polls = self.polls or THAWED in script
        body = f"# {MARK}\n{script}"
        path = f"/opt/atk/{MARK}-{how}.sh"
        await turn.sandbox.write_file(path, body, mode=0o755)
        launch = {
            "nohup": f"nohup sh {path} >/dev/null 2>&1 &",
            "setsid": f"setsid sh {path} >/dev/null 2>&1 < /dev/null &",
            "double-fork": f"( ( sh {path} >/dev/null 2>&1 & ) & ); true",
            "cron": (
                "nohup sh -c 'while :; do "
                f"( sh {path} & ) ; sleep 0.2; done # {MARK}' >/dev/null 2>&1 &"
            ),
        }[how]
        await self.sh(turn, launch)

    async def wait_for_file(self, turn: lhtb.Turn, path: str, timeout: float = 60) -> None:
        """Wait until ``path`` exists (a background process wrote its marker)."""
        with anyio.fail_after(timeout):
            while not (await turn.sandbox.exec(["test", "-e", path], timeout=60)).ok:
                await anyio.sleep(0.05)

    async def run(self, turn: lhtb.Turn) -> None:
        self.feedback.append(turn.feedback)
        if turn.feedback:
            self.seen += turn.feedback.encode()
        if turn.number == 1:
            if self.answer is not None:
                await turn.sandbox.write_file("/app/answer.txt", self.answer + "\n")
            await self.setup(turn)
        else:
            await self.resume(turn)

    async def setup(self, turn: lhtb.Turn) -> None:
        """The attack (turn 1, after the honest work)."""

    async def resume(self, turn: lhtb.Turn) -> None:
        """After a rejection: look at everything the attack could have collected."""
        if self.polls:  # the poller ran a full iteration since this turn began
            nonce = f"turn-{turn.number}-{os.urandom(4).hex()}"
            await turn.sandbox.write_file(THAWED, nonce + "\n")
            with anyio.fail_after(120):
                while (await self.sh(turn, f"cat {OBSERVED}", timeout=60)).stdout_text.strip() != (
                    nonce
                ):
                    await anyio.sleep(0.05)
        await self.sh(
            turn,
            "for d in /loot /tests /logs /solution /tmp /var/tmp /app; do "
            "find $d -xdev -type f 2>/dev/null | head -n 2000 | "
            'while read -r f; do cat "$f"; done; done 2>/dev/null; ls -laR /tests /logs 2>&1',
            timeout=60,
        )


OUTCOMES = {
    "blocked": "the attack had no effect: honest reward, nothing leaked",
    "refused": "the verifier refused the submission: the pass scored 0, reason recorded",
    "lost": "the agent destroyed its own sandbox: agent_error, no reward (scored 0)",
    "spoiled": "the agent's own tools broke its pass (modes that run them): verifier_error, "
    "no reward",
    "forged": "the reward exceeds the honest one (documented weakness of the mode)",
    "leaked": "hidden test or verifier bytes reached the agent",
    "other": "anything else (a bug)",
}


def classify(episode: lhtb.Episode, agent: AttackAgent, honest: float) -> str:
    """Name what happened, in the words of :data:`OUTCOMES`."""
    if SECRET.encode() in agent.seen:
        return "leaked"
    errors = " ".join(p.error or "" for p in episode.passes)
    if episode.reward is None and str(episode.outcome) == "agent_error" and not episode.passes:
        return "lost"
    if episode.reward is None and str(episode.outcome) == "verifier_error":
        return "spoiled"
    if episode.reward is None:
        return "other"
    if episode.reward == 0.0 and "refused" in errors:
        return "refused"
    if episode.reward > honest:
        return "forged"
    if episode.reward == honest:
        return "blocked"
    return "other"


@attrs.frozen
class Row:
    technique: str
    backend: str
    isolation: str
    outcome: str
    reward: float | None
    detail: str = ""


_RESULTS: list[Row] = []


def _status_bytes(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/self/status")


def reset_peak_memory() -> int:
    """Reset the kernel's peak-RSS mark of this process to its current RSS; return it.

    The kernel tracks the peak (``VmHWM``) on every page fault, so the growth an
    attack causes is measured exactly, however loaded the machine is (no sampling).
    """
    Path("/proc/self/clear_refs").write_text("5")
    return _status_bytes("VmRSS")


def peak_memory() -> int:
    """The peak RSS of this process since :func:`reset_peak_memory`."""
    return _status_bytes("VmHWM")


def record(row: Row) -> None:
    _RESULTS.append(row)


def write_results() -> None:
    path = os.environ.get(RESULTS_ENV)
    if not path or not _RESULTS:
        return
    target = Path(path)
    existing = json.loads(target.read_text()) if target.is_file() else {"rows": []}
    keys = {(r.technique, r.backend, r.isolation) for r in _RESULTS}
    rows = [
        r for r in existing["rows"] if (r["technique"], r["backend"], r["isolation"]) not in keys
    ]
    rows += [attrs.asdict(r) for r in _RESULTS]
    rows.sort(key=lambda r: (r["technique"], r["backend"], r["isolation"]))
    payload = {"techniques": TECHNIQUES, "rows": rows}
    target.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")


async def run_modes(
    technique: str,
    backend: SandboxBackend,
    base: lhtb.Task,
    make_agent: Callable[[], AttackAgent],
    tmp_path: Path,
    run_id: str,
    *,
    honest: float,
    expect: Mapping[str, str | tuple[str, ...]] | None = None,
    modes: tuple[str, ...] = MODES,
    verify_sleep: float = 0.0,
    check: Callable[[lhtb.Episode, AttackAgent, str], None] | None = None,
    **episode_kwargs: Any,
) -> dict[str, lhtb.Episode]:
    """Run the attack under each isolation mode concurrently; assert and record each result.

    ``expect`` maps a mode to its documented outcome (default ``blocked``). An
    ``infra_error`` fails every mode: an attack must never earn a retry.
    """
    expect = expect or {}
    episodes: dict[str, lhtb.Episode] = {}
    agents: dict[str, AttackAgent] = {}

    async def one(mode: str) -> None:
        agent = agents[mode] = make_agent()
        episodes[mode] = await lhtb.run_episode(
            task_for(base, mode, verify_sleep=verify_sleep),
            agent,
            backend=backend,
            run_id=run_id,
            output_dir=tmp_path / mode,
            **episode_kwargs,
        )

    baseline = reset_peak_memory()
    async with anyio.create_task_group() as group:
        for mode in modes:
            group.start_soon(one, mode)
    growth = peak_memory() - baseline
    failures = []
    if growth > MEMORY_BUDGET:
        failures.append(f"all modes: the harness grew by {growth / 1024**2:.0f} MiB")
    for mode in modes:
        episode, agent = episodes[mode], agents[mode]
        wanted = expect.get(mode, "blocked")
        want = (wanted,) if isinstance(wanted, str) else wanted
        got = classify(episode, agent, honest)
        detail = episode.error or " ".join(p.error or "" for p in episode.passes)
        record(Row(technique, backend.name, mode, got, episode.reward, detail[:200]))
        problems = []
        if got not in want:
            problems.append(f"{got} (reward {episode.reward}, honest {honest}), want {want}")
        if str(episode.outcome) == "infra_error":
            problems.append(f"infra_error: {episode.error}")
        if check is not None:
            try:
                check(episode, agent, mode)
            except AssertionError as error:
                problems.append(f"check: {error}")
        if problems:
            failures.append(f"{mode}: {'; '.join(problems)} [{detail[:300]}]")
    assert not failures, f"{technique} on {backend.name}:\n" + "\n".join(failures)
    return episodes


TECHNIQUES = {
    "read-verifier-paths": "read /tests, /logs/verifier, /solution, /tmp/pytest-of-*, the "
    "verifier's scratch dir: before, during (a reader loop) and after passes",
    "poller-nohup": "a nohup'd poller copies every new file under / while passes run",
    "poller-setsid": "the same poller in its own session (setsid)",
    "poller-double-fork": "the same poller, double-forked (re-parented to init)",
    "poller-cron": "a cron-like loop starting a fresh poller every 0.2 s",
    "prewrite-rewards": "reward.txt, reward.json and scorecard.json written in advance",
    "background-reward-writer": "a loop rewriting the reward files, also right after a pass",
    "tamper-python3": "/usr/bin/python3 replaced by a wrapper that forges the reward",
    "tamper-pytest": "the image's pytest replaced by a forger",
    "tamper-sh": "/bin/sh (dash) replaced by a wrapper that forges after every command",
    "tamper-bash": "/bin/bash (the test.sh interpreter) replaced likewise",
    "tamper-sitecustomize": "a sitecustomize.py hook forging at interpreter exit",
    "tamper-pth-hook": "a .pth file importing a forging hook",
    "tamper-path-shim": "a pytest shim earlier on PATH (/usr/local/bin)",
    "artifact-link-to-verifier-file": "answer.txt is a symlink to the hidden /tests/expected.txt",
    "artifact-link-to-host": "symlinks to /etc/shadow, /logs/verifier, the Docker socket, /",
    "artifact-dotdot-link": "relative ../ symlinks climbing out of the artifact dir",
    "artifact-device-file": "a character device and a FIFO in the artifact dir",
    "artifact-dotdot-link-chain": "`a -> .` and `answer.txt -> a/../tests/expected.txt`: inside "
    "the artifact by normpath, outside once the kernel follows `a`",
    "artifact-link-loop": "a link loop and a chain of 45 links in the artifact dir",
    "artifact-hardlink-out": "hard links between artifact files and files outside it "
    "(`/opt`, `/etc/passwd`)",
    "artifact-deep-tree": "a directory tree 1100 levels deep in the artifact dir",
    "artifact-dir-replaced-by-file": "the artifact dir `/app` replaced by a regular file",
    "artifact-sparse-over-default-cap": "two 1.2 GB sparse files in the artifact dir, over the "
    "default 2 GiB archive cap (harness memory measured)",
    "logs-link-host-write": "a tampered test tool leaves `a -> .` and `refused.txt`, "
    "`dropped.txt`, `test-stderr.txt`, `sub` -> `a/a/../../<host path>` in /logs/verifier",
    "logs-refused-txt-directory": "a tampered test tool makes /logs/verifier/refused.txt a "
    "directory and drops the reward",
    "logs-special-files": "a tampered test tool leaves a FIFO, a device, hard and symbolic "
    "links and a 200-level tree in /logs/verifier",
    "snapshot-links-to-host": "absolute links to host paths at /etc/shadow, /etc/gshadow and "
    "/var/lib, left for the snapshot verifier",
    "snapshot-odd-system-files": "a directory at /etc/shadow, a FIFO at /etc/gshadow, a link "
    "loop at /etc/shadow-, left for the snapshot verifier",
    "artifact-sparse-10g": "a 10 GB sparse file in the artifact dir",
    "artifact-many-files": "more files than the archive member cap",
    "artifact-injected-members": "a tampered tar appending members outside the artifact path",
    "fork-bomb": "an unbounded fork bomb",
    "fill-disk": "256 MB of real blocks outside the artifacts (no quota: see Known limits)",
    "stdout-flood-1g": "1 GB on stdout through exec, plus a background flood",
    "non-utf8-output": "invalid UTF-8 on stdout/stderr and in file names",
    "kill-sdk-helpers": "kill the init, `sleep infinity` and every exec wrapper",
    "change-clock": "set the system clock (date -s, hwclock)",
    "stop-spam-max-passes": "stop immediately every turn; max_passes must hold",
    "stop-spam-min-interval": "stop immediately every turn; min_pass_interval_sec must hold",
    "write-after-budget": "a process spoiling the answer from just after the deadline",
    "ignore-cancellation": "an agent coroutine that swallows cancellation and keeps writing",
    "ptrace-inject-init": "ptrace the sandbox's init (PID 1) and make it execve a poller that "
    "never forks",
    "fork-exit-chain": "processes that fork their successor and exit at once, among 120 idle "
    "ones (racing a per-process SIGSTOP sweep), copying the grader's files",
    "sigcont-storm": "processes sending SIGCONT to everything, beside a poller",
    "channel-malformed-exit": "a python3 shim on PATH replaces the next exec-channel helper "
    "(Docker); it answers with a malformed EXIT frame",
    "channel-giant-frame": "the impostor helper declares a 2 GiB frame and streams 600 MiB",
    "channel-output-over-cap": "the impostor sends 100 MiB of well-formed output (cap 10 MiB)",
    "channel-stray-frames": "the impostor floods 100 MiB of frames for calls that do not exist",
    "reach-host-loopback": "connect to a service on the host's 127.0.0.1 (via 127.0.0.1, "
    "localhost, the slirp and Docker gateways), with internet allowed",
    "packet-socket": "open an AF_PACKET raw socket and sniff",
    "agent-exec-as-root": "with [agent].user set, exec(..., user='root') to write the answer "
    "where the agent's user may not",
}
"""Every technique the suite runs, with what it does (rendered into docs/security.md)."""
