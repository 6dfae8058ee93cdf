"""Canary stripping and the task content checksum."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from lhtb.task._files import strip_canary, task_checksum

VALID = Path(__file__).parent / "fixtures" / "tasks" / "valid"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<!-- lhtb-canary GUID 1 -->\n\nDo it.\n", "Do it.\n"),
        ("# BENCHMARK DATA. terminal-bench-CANARY GUID 2\nDo it.\n", "Do it.\n"),
        ("<!-- canary a -->\n\n# Canary b\n\n\nDo it.\n", "Do it.\n"),
        ("  <!-- CANARY -->  \r\n\r\nDo it.\r\n", "Do it.\r\n"),
        # not canary lines: kept untouched
        ("# Title\n\nDo it.\n", "# Title\n\nDo it.\n"),
        ("<!-- a note -->\nDo it.\n", "<!-- a note -->\nDo it.\n"),
        ("Do it.\n<!-- canary -->\n", "Do it.\n<!-- canary -->\n"),
        ("\n<!-- canary -->\nDo it.\n", "\n<!-- canary -->\nDo it.\n"),
        ("<!-- canary spans\nlines -->\nDo it.\n", "<!-- canary spans\nlines -->\nDo it.\n"),
        ("<!-- canary -->\n", ""),
    ],
)
def test_strip_canary(text: str, expected: str) -> None:
    assert strip_canary(text) == expected


def copy_task(tmp_path: Path, name: str = "task") -> Path:
    return Path(shutil.copytree(VALID / "lhtb-native-log-audit", tmp_path / name))


def test_checksum_is_sha256_hex_and_stable_across_copies(tmp_path: Path) -> None:
    first = task_checksum(copy_task(tmp_path, "a"))
    assert first == task_checksum(copy_task(tmp_path, "b"))
    assert first == task_checksum(VALID / "lhtb-native-log-audit")
    assert len(first) == 64
    int(first, 16)


def test_checksum_matches_the_documented_recipe(tmp_path: Path) -> None:
    root = tmp_path / "t"
    (root / "tests").mkdir(parents=True)
    (root / "task.toml").write_bytes(b"x = 1\n")
    (root / "tests" / "test.sh").write_bytes(b"#!/bin/sh\n")
    digest = hashlib.sha256()
    for relative, data in [("task.toml", b"x = 1\n"), ("tests/test.sh", b"#!/bin/sh\n")]:
        digest.update(b"F\0" + relative.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    assert task_checksum(root) == digest.hexdigest()


def test_checksum_ignores_caches_modes_and_times(tmp_path: Path) -> None:
    task_dir = copy_task(tmp_path)
    before = task_checksum(task_dir)
    (task_dir / "tests" / "__pycache__").mkdir()
    (task_dir / "tests" / "__pycache__" / "grade.cpython-311.pyc").write_bytes(b"\0\1")
    (task_dir / "tests" / "stray.pyc").write_bytes(b"\0")
    (task_dir / ".git").mkdir()
    (task_dir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (task_dir / "tests" / "grade.py").chmod(0o700)
    assert task_checksum(task_dir) == before


@pytest.mark.parametrize(
    "change",
    [
        lambda d: (d / "tests" / "grade.py").write_text('print("changed")\n'),
        lambda d: (d / "instruction.md").write_text("other\n"),
        lambda d: (d / "tests" / "grade.py").rename(d / "tests" / "grade2.py"),
        lambda d: (d / "environment" / "extra.txt").write_text(""),
        lambda d: (d / "tests" / "grade.py").unlink(),
    ],
    ids=["content", "instruction", "rename", "new-empty-file", "removed-file"],
)
def test_checksum_changes_with_content(tmp_path: Path, change: object) -> None:
    task_dir = copy_task(tmp_path)
    before = task_checksum(task_dir)
    change(task_dir)  # type: ignore[operator]
    assert task_checksum(task_dir) != before


def test_checksum_does_not_confuse_path_and_content_boundaries(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "a").write_bytes(b"bc")
    (two / "ab").write_bytes(b"c")
    assert task_checksum(one) != task_checksum(two)
