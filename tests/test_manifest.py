"""The run manifest: configuration changes are refused with what changed; one runner per dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from lhtb.bench._manifest import describe_changes, hold_lock, open_manifest
from lhtb.errors import RunConfigChangedError, RunLockedError

CONFIG = {"tasks": {"a": "1", "b": "2"}, "attempts": 2, "budget_sec": None}


def test_a_resume_keeps_the_run_id_and_adds_an_invocation(tmp_path: Path) -> None:
    first = open_manifest(tmp_path, CONFIG, "run-1")
    second = open_manifest(tmp_path, dict(CONFIG), "run-2")
    assert first["run_id"] == second["run_id"] == "run-1"
    assert len(second["invocations"]) == 2


def test_a_changed_configuration_is_refused_with_what_changed(tmp_path: Path) -> None:
    open_manifest(tmp_path, CONFIG, "run-1")
    changed = {"tasks": {"a": "9", "c": "3"}, "attempts": 3, "budget_sec": None}
    with pytest.raises(RunConfigChangedError) as caught:
        open_manifest(tmp_path, changed, "run-2")
    assert caught.value.changes == (
        "attempts: 2 -> 3",
        "tasks added: c",
        "tasks removed: b",
        "task files changed (checksum): a",
    )
    assert "resume with the original settings" in str(caught.value)


def test_describe_changes_of_equal_configurations_is_empty() -> None:
    assert describe_changes(CONFIG, dict(CONFIG)) == []


def test_two_runners_cannot_share_a_directory(tmp_path: Path) -> None:
    with (
        hold_lock(tmp_path),
        pytest.raises(RunLockedError, match="another lhtb process"),
        hold_lock(tmp_path),
    ):
        pass
    with hold_lock(tmp_path):  # released again
        pass
