"""Forging the reward: pre-written reward files, a writer that overwrites them after
the verifier exits, and replacing the verifier's tools in the agent's sandbox.

``separate`` must be immune to all of it. ``snapshot`` and ``shared`` run the
tests on the agent's own filesystem, so a tampered interpreter, shell, test
runner or Python hook forges the reward there: that is their documented
limit (docs/security.md), and the expected outcome below says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lhtb
from lhtb.sandbox.base import SandboxBackend

from ._attack import FORGE_SH, MARK, AttackAgent, run_modes

pytestmark = [pytest.mark.anyio]

DOCUMENTED = {"snapshot": "forged", "shared": "forged"}


class PrewriteRewards(AttackAgent):
    """Writes reward.txt, reward.json and scorecard.json where the verifier reads them."""

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, f"{FORGE_SH}; mkdir -p /app/logs/verifier; cp /logs/verifier/* /app/")


class BackgroundRewardWriter(AttackAgent):
    """Keeps rewriting the reward files, so they are fresh again right after a pass."""

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.spawn(turn, f"while :; do {FORGE_SH}; sleep 0.01; done")


async def test_prewritten_rewards(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    await run_modes(
        "prewrite-rewards", backend, attack_task, PrewriteRewards, tmp_path, run_id, honest=0.0
    )


async def test_background_reward_writer(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    await run_modes(
        "background-reward-writer",
        backend,
        attack_task,
        BackgroundRewardWriter,
        tmp_path,
        run_id,
        honest=0.0,
        verify_sleep=0.3,
    )


FORGE = "/usr/lib/.atk-forge"
WRAP = '#!/usr/lib/.real-dash\n{real} "$@"; rc=$?\n' + FORGE + "\nexit $rc\n"
HOOK_PY = f"import atexit, os\natexit.register(lambda: os.system({FORGE!r}))  # {MARK}\n"

# Each replaces one tool the verifier uses, as the agent's last act (turn 1):
# path -> (content, a copy of the original to keep or None).
TAMPER: dict[str, list[tuple[str, str, str | None]]] = {
    "python3": [
        ("/usr/bin/python3", WRAP.format(real="/usr/lib/.real-python3"), "/usr/lib/.real-python3")
    ],
    "pytest": [("/usr/bin/pytest", f"#!/usr/lib/.real-dash\n{FORGE}\n", None)],
    "sh": [("/bin/dash", WRAP.format(real="/usr/lib/.real-dash2"), "/usr/lib/.real-dash2")],
    "bash": [("/bin/bash", WRAP.format(real="/usr/lib/.real-bash"), "/usr/lib/.real-bash")],
    "sitecustomize": [("/usr/lib/python3.11/sitecustomize.py", HOOK_PY, None)],
    "pth-hook": [
        ("/usr/lib/python3/dist-packages/atk_hook.py", HOOK_PY, None),
        ("/usr/lib/python3/dist-packages/zzz-atk.pth", "import atk_hook\n", None),
    ],
    "path-shim": [("/usr/local/bin/pytest", f"#!/usr/lib/.real-dash\n{FORGE}\n", None)],
}


def _tamper(tool: str) -> type[AttackAgent]:
    class Tamper(AttackAgent):
        async def setup(self, turn: lhtb.Turn) -> None:
            await self.sh(turn, "cp /bin/dash /usr/lib/.real-dash")
            await turn.sandbox.write_file(FORGE, f"#!/usr/lib/.real-dash\n{FORGE_SH}\n", mode=0o755)
            for path, content, keep in TAMPER[tool]:
                if keep:
                    await self.sh(turn, f"cp -L {path} {keep}")
                await turn.sandbox.write_file("/tmp/atk-new", content, mode=0o755)
                await turn.sandbox.exec(["/usr/lib/.real-dash", "-c", f"mv -f /tmp/atk-new {path}"])

    return Tamper


@pytest.mark.parametrize("tool", sorted(TAMPER))
async def test_replace_verifier_tools(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str, tool: str
) -> None:
    await run_modes(
        f"tamper-{tool}",
        backend,
        attack_task,
        _tamper(tool),
        tmp_path,
        run_id,
        honest=0.0,
        expect=DOCUMENTED,
        max_passes=1,
    )
