"""Hostile artifacts: links out of the artifact path (to verifier files or the host),
``..`` paths, device files, a 10 GB sparse file, more files than the member cap,
and a tampered ``tar`` that injects members outside the artifact path.

In ``separate`` mode the verifier refuses such a submission: the pass scores 0
with the reason recorded. ``snapshot`` and ``shared`` export nothing; a link
into the verifier's own files (``/tests``) is then followed by the tests
themselves, which is their documented limit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lhtb
from lhtb.sandbox.archive import DEFAULT_ARCHIVE_LIMITS
from lhtb.sandbox.base import SandboxBackend

from ._attack import DEEP_TREE, MODES, AttackAgent, run_modes
from .conftest import make_backend

pytestmark = [pytest.mark.anyio]


class LinkToVerifierFile(AttackAgent):
    """``answer.txt`` is a link to the hidden expected answer in ``/tests``."""

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "ln -sf /tests/expected.txt /app/answer.txt")


class LinkToHost(AttackAgent):
    """Honest answer, plus links to host and verifier paths next to it."""

    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(
            turn,
            "ln -s /etc/shadow /app/shadow; ln -s /logs/verifier /app/logs; "
            "ln -s /var/run/docker.sock /app/docker.sock; ln -s / /app/root",
        )


class DotDot(AttackAgent):
    """Relative ``..`` links that climb out of ``/app`` to the verifier's files."""

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(
            turn,
            "mkdir -p /app/a/b; ln -s ../../../tests/expected.txt /app/a/b/up; "
            "ln -s a/b/../../../tests/expected.txt /app/answer.txt",
        )


class DotDotChain(AttackAgent):
    """``a -> .`` makes ``a/..`` climb out of ``/app``, although ``normpath`` reads
    ``a/../tests/expected.txt`` as ``/app/tests/expected.txt``."""

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "ln -s . /app/a; ln -sf a/../tests/expected.txt /app/answer.txt")


class LinkLoop(AttackAgent):
    """A link loop and a chain of 45 links (the kernel gives up after 40)."""

    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(
            turn,
            "cd /app && ln -s l2 l1 && ln -s l1 l2 && ln -s answer.txt c45 && "
            "for i in $(seq 44 -1 0); do ln -s c$((i + 1)) c$i; done",
        )


class HardLinkOut(AttackAgent):
    """Hard links between the artifact and files outside it (the answer is one)."""

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(
            turn,
            "echo 42 > /opt/a42 && ln -f /opt/a42 /app/answer.txt && ln /app/answer.txt /app/h2; "
            "ln /etc/passwd /app/passwd; true",
        )


class DeepTree(AttackAgent):
    """A directory tree 1100 levels deep (Python's recursion limit is 1000)."""

    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, f"cd /app && python3 -c '{DEEP_TREE.format(depth=1100)}'")


class FileForArtifactDir(AttackAgent):
    """The artifact directory ``/app`` replaced by a regular file."""

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "cd / && rm -rf /app && echo 42 > /app")


class DeviceFiles(AttackAgent):
    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "mknod /app/null c 1 3 2>/dev/null; mkfifo /app/fifo")


class Sparse10G(AttackAgent):
    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "truncate -s 10G /app/big.img")


class SparseOverDefaultCap(AttackAgent):
    """Two 1.2 GB sparse files: each fits the default 2 GiB cap, together they do not."""

    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "truncate -s 1200M /app/big1.img /app/big2.img")


class ManyFiles(AttackAgent):
    """More files than the (lowered, 2000) member cap; the same trick scales to millions."""

    answer = "42"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(turn, "mkdir -p /app/many && cd /app/many && seq 1 2500 | xargs touch")


class InjectMembers(AttackAgent):
    """A ``tar`` that adds members outside the artifact path (a backend exporting with
    in-sandbox tools would ship them), here a forged ``/usr/bin/pytest``."""

    answer = "41"

    async def setup(self, turn: lhtb.Turn) -> None:
        await self.sh(
            turn,
            "mkdir -p /opt/inject/usr/bin && printf '#!/bin/sh\\necho forged\\n' "
            "> /opt/inject/usr/bin/pytest && chmod 755 /opt/inject/usr/bin/pytest && "
            'cp /bin/tar /usr/lib/.real-tar && printf \'#!/bin/sh\\n/usr/lib/.real-tar "$@"; '
            '[ -n "$ATK_DONE" ] || ATK_DONE=1 /usr/lib/.real-tar -c -C /opt/inject usr\\n\' '
            "> /tmp/t && chmod 755 /tmp/t && mv -f /tmp/t /bin/tar",
        )


SEPARATE_REFUSES = {"separate": "refused"}
CASES = {
    "artifact-link-to-verifier-file": (
        LinkToVerifierFile,
        0.0,
        {"snapshot": "forged", "shared": "forged"},
    ),
    "artifact-link-to-host": (LinkToHost, 1.0, SEPARATE_REFUSES),
    "artifact-dotdot-link": (DotDot, 0.0, {"snapshot": "forged", "shared": "forged"}),
    "artifact-dotdot-link-chain": (DotDotChain, 0.0, {"snapshot": "forged", "shared": "forged"}),
    "artifact-link-loop": (LinkLoop, 1.0, SEPARATE_REFUSES),
    "artifact-hardlink-out": (HardLinkOut, 1.0, {}),
    "artifact-deep-tree": (DeepTree, 1.0, {}),
    "artifact-dir-replaced-by-file": (FileForArtifactDir, 0.0, dict.fromkeys(MODES, "refused")),
    "artifact-device-file": (DeviceFiles, 1.0, SEPARATE_REFUSES),
    "artifact-sparse-10g": (Sparse10G, 1.0, {"separate": "refused", "snapshot": "refused"}),
    "artifact-many-files": (ManyFiles, 1.0, SEPARATE_REFUSES),
    "artifact-injected-members": (InjectMembers, 0.25, {}),
}


@pytest.mark.parametrize("technique", sorted(CASES))
async def test_hostile_artifacts(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str, technique: str
) -> None:
    agent, honest, expect = CASES[technique]
    if technique == "artifact-sparse-10g" and backend.name == "local":
        expect = {"separate": "refused"}  # local snapshots copy sparse files as sparse
    if technique.startswith(("artifact-link-to-verifier-file", "artifact-dotdot-link")):
        expect = {"separate": "refused", **expect}
    await run_modes(
        technique,
        backend,
        attack_task,
        agent,
        tmp_path,
        run_id,
        honest=honest,
        expect=expect,
        max_passes=1,
    )


async def test_sparse_files_over_the_default_caps(
    backend: SandboxBackend, attack_task: lhtb.Task, tmp_path: Path, run_id: str
) -> None:
    """Over the default caps: refused before a byte of it is buffered (``run_modes``
    measures the harness's peak memory), whichever file the export meets first."""
    defaults = make_backend(backend.name, archive_limits=DEFAULT_ARCHIVE_LIMITS)
    await run_modes(
        "artifact-sparse-over-default-cap",
        defaults,
        attack_task,
        SparseOverDefaultCap,
        tmp_path,
        run_id,
        honest=1.0,
        expect={
            "separate": "refused",
            "snapshot": "refused" if backend.name == "docker" else "blocked",
        },
        max_passes=1,
    )
