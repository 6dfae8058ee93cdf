"""Resource attacks: a fork bomb, filling the disk, 1 GB of output, non-UTF-8 bytes,
killing the SDK's helpers in the sandbox, and changing the clock."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

import lhtb
from lhtb.episode import TurnEnd
from lhtb.sandbox.base import SandboxBackend

from ._attack import MARK, AttackAgent, run_modes

pytestmark = [pytest.mark.anyio]


class ForkBomb(AttackAgent):
    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.spawn(turn, "b() { b | b & }; b")
        # until the bomb holds 100 processes (or 30 s): it is running when the turn ends
        await self.sh(
            turn,
            "i=0; while [ $i -lt 300 ] && [ $(ps -e | wc -l) -lt 100 ]; do "
            "i=$((i+1)); sleep 0.1; done; ps -e | wc -l",
            timeout=60,
        )


class FillDisk(AttackAgent):
    """256 MB of real blocks outside the artifacts (a full fill would take the host's disk:
    no backend enforces a disk quota, see docs/security.md)."""

    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(
            turn, "fallocate -l 256M /var/tmp/fill || head -c 256M /dev/zero > /var/tmp/fill"
        )


class FloodStdout(AttackAgent):
    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        result = await turn.sandbox.exec("head -c 1G /dev/zero", timeout=120)
        assert result.stdout_truncated
        assert len(result.stdout) <= 10 * 1024 * 1024
        await self.spawn(turn, "head -c 1G /dev/zero; yes")


class NonUtf8(AttackAgent):
    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(
            turn,
            "printf '\\377\\376\\300\\200 bad \\xed\\xa0\\x80\\n'; printf '\\377' >&2; "
            "touch \"/app/$(printf '\\377\\376')\"; printf '\\377\\376' > /app/notes.txt",
        )


class KillHelpers(AttackAgent):
    """Kills everything it can: the init, ``sleep infinity``, exec wrappers."""

    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        for command in ("kill -TERM 1; kill -KILL 1", "kill -KILL -1"):
            with contextlib.suppress(lhtb.errors.LhtbError):
                await self.sh(turn, f"{command}; true # {MARK}", timeout=10)


class ChangeClock(AttackAgent):
    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "date -s '2001-01-01 00:00:00'; date -s '+10 years'; hwclock -w; true")


def _record_is_sane(episode: lhtb.Episode, agent: AttackAgent, mode: str) -> None:
    """The episode ended (a hang fails on pytest's timeout) with a complete record."""
    del agent, mode
    assert episode.ended_at is not None
    assert episode.turns
    assert episode.turns[0].end in {TurnEnd.RETURNED, TurnEnd.DEADLINE, TurnEnd.ERROR}
    assert len(episode.passes) <= 1  # max_passes held
    json.dumps(episode.to_dict())  # serialisable whatever bytes went by


async def test_fork_bomb(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    await run_modes(
        "fork-bomb",
        backend,
        attack_task,
        ForkBomb,
        tmp_path,
        run_id,
        honest=1.0,
        max_passes=1,
        budget=20,  # a starved sandbox can hold the turn to its deadline
        check=_record_is_sane,
        # shared: the verifier's own processes need a pid slot the bomb holds, so the
        # tests may not start at all (no reward: never a forged or leaked one)
        # (or, on local, the bomb starves the sandbox's init: the agent lost its sandbox)
        # (or the verifier's own setup cannot fork: the agent spoiled its pass)
        # In no mode is the bomb an infra_error, which a runner would retry: the agent's
        # own process storm would re-roll its episode.
        expect={"shared": ("blocked", "other", "lost", "spoiled")},
    )


@pytest.mark.parametrize(
    ("technique", "agent"),
    [
        ("fill-disk", FillDisk),
        ("stdout-flood-1g", FloodStdout),
        ("non-utf8-output", NonUtf8),
        ("kill-sdk-helpers", KillHelpers),
        ("change-clock", ChangeClock),
    ],
)
async def test_resource_attack(
    backend: SandboxBackend,
    attack_task: lhtb.Task,
    tmp_path: Path,
    run_id: str,
    technique: str,
    agent: type[AttackAgent],
) -> None:
    expect: dict[str, str | tuple[str, ...]] = {}
    if technique == "kill-sdk-helpers" and backend.name == "docker":
        # Whether the container survives depends on which process the kill sweep
        # reaches first; either way the agent gains nothing.
        expect = dict.fromkeys(("separate", "snapshot", "shared"), ("lost", "blocked"))
    await run_modes(
        technique,
        backend,
        attack_task,
        agent,
        tmp_path,
        run_id,
        honest=1.0,
        max_passes=1,
        check=_record_is_sane,
        expect=expect,
    )
