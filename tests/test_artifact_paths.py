"""A ``separate`` pass grades an artifact path as the agent left it.

The verifier's sandbox starts from the pristine image, which holds the starter's
files; the agent's copy of the artifact path replaces that directory rather than
being laid over it, so a file the agent deleted does not come back (a starter
``main.c`` the agent folded into another file would otherwise be built again).
What the artifact ``exclude``s is not exported, so the image's copy of it stays.
"""

from __future__ import annotations

import io
import tarfile
import textwrap
from pathlib import Path

import pytest

import lhtb
from lhtb.sandbox.base import SandboxBackend
from lhtb.verify._artifacts import removable_members

pytestmark = pytest.mark.anyio

# scores 1 only when the agent's deletion held, its new file is there and the
# excluded starter data came from the image
TEST_SH = """#!/bin/sh
score=1
[ -e /app/src/old.c ] && score=0
[ "$(cat /app/src/new.c 2>/dev/null)" = "new" ] || score=0
[ "$(cat /app/data/input.csv 2>/dev/null)" = "bundled" ] || score=0
echo $score > /logs/verifier/reward.txt
"""


def write_task(root: Path) -> lhtb.Task:
    (root / "environment").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\n"
        "RUN mkdir -p /app/src /app/data && echo old > /app/src/old.c "
        "&& echo bundled > /app/data/input.csv\n"
    )
    (root / "tests" / "test.sh").write_text(TEST_SH)
    (root / "instruction.md").write_text("Replace src/old.c by src/new.c.\n")
    (root / "task.toml").write_text(
        textwrap.dedent(
            """\
            [agent]
            timeout_sec = 120
            [verifier]
            isolation = "separate"
            timeout_sec = 60
            [[artifacts]]
            source = "/app"
            exclude = ["data"]
            """
        )
    )
    return lhtb.load_task(root)


async def replace_the_file(turn: lhtb.Turn) -> None:
    done = await turn.sandbox.exec(
        "rm /app/src/old.c && echo new > /app/src/new.c && echo edited > /app/data/input.csv"
    )
    assert done.ok, done.stderr_text


async def test_a_deleted_file_stays_deleted_and_excluded_paths_come_from_the_image(
    sandbox_backend: SandboxBackend, tmp_path: Path
) -> None:
    task = write_task(tmp_path / "task")
    episode = await lhtb.run_episode(
        task, replace_the_file, backend=sandbox_backend, output_dir=tmp_path / "ep"
    )
    assert [p.reward for p in episode.passes] == [1.0], episode.passes[-1].error
    kept = tmp_path / "ep" / "final-inputs" / "artifact-000.tar"
    with tarfile.open(kept) as tar:
        names = set(tar.getnames())
    assert "app/src/new.c" in names  # the agent's file went in ...
    assert not any(n.startswith("app/data/") for n in names)  # ... the excluded one did not


def _tar(*names: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name in names:
            info = tarfile.TarInfo(name.rstrip("/"))
            if name.endswith("/"):
                info.type = tarfile.DIRTYPE
            tar.addfile(info, io.BytesIO(b""))
    return out.getvalue()


def test_removable_members_cover_everything_but_what_is_excluded() -> None:
    image = _tar("app/", "app/src/", "app/src/a.c", "app/src/b.c", "app/data/", "app/data/x.csv")
    assert removable_members(image, ()) == ["/app"]
    assert removable_members(image, ["data"]) == ["/app/src"]
    assert removable_members(image, ["*.csv"]) == ["/app/src"]  # data/ holds it: kept
    assert removable_members(image, ["b.c"]) == ["/app/data", "/app/src/a.c"]
