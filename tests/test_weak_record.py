"""The weak-gate record of ``lhtb check --record``: kept by task checksum, read back
exactly, refused with a typed error when damaged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import lhtb
from lhtb.errors import LhtbError
from lhtb.gates._weak_record import new_record, read_records, write_records

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "harbor" / "network-mode"


def test_a_record_reads_back_and_holds_only_for_the_same_bytes(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "task")
    task = lhtb.load_task(tmp_path / "task")
    record = new_record(task, {"weak_solution": (7, 0.25), "weak_solution_x": (9, 0.0)}, "9.9")
    path = tmp_path / "records" / "weak-gate.json"
    assert read_records(path) == {}
    write_records(path, {task.name: record})
    assert read_records(path) == {task.name: record}
    assert record.holds_for(lhtb.load_task(tmp_path / "task"))
    (tmp_path / "task" / "tests" / "test.sh").write_text("#!/bin/sh\necho 1\n")
    assert not record.holds_for(lhtb.load_task(tmp_path / "task"))


@pytest.mark.parametrize(
    "text", ["not json", "[]", '{"t": 1}', '{"t": {"checksum": "x"}}', '{"t": {"weak": [{}]}}']
)
def test_a_damaged_record_is_a_typed_error_naming_the_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "weak-gate.json"
    path.write_text(text)
    with pytest.raises(LhtbError) as caught:
        read_records(path)
    assert str(path) in str(caught.value)
    assert "lhtb check" in str(caught.value)
