"""Locating the line of a key in task.toml (tomlkit keeps no key positions)."""

from __future__ import annotations

from lhtb.task._toml_lines import dotted, first_redefinition, key_lines, line_of

SOURCE = '''\
schema_version = "1.1"  # comment with = and [brackets]
artifacts = [
  "/app/a",   # first
  { source = "/app/b", destination = "/b" },
]
agent.timeout_sec = 60

[verifier]
note = """
[fake]
key = 1
"""
env = { A = "x}", "B.C" = 'y' }

[[verifier.subtasks]]
name = "one"

[[verifier.subtasks]]
name = "two"
weight = 2

[[steps]]
name = "s1"

[steps.agent]
timeout_sec = 1

[[steps]]
name = "s2"
'''


def test_key_lines_cover_tables_arrays_and_inline_tables() -> None:
    lines = key_lines(SOURCE)
    assert lines[("schema_version",)] == 1
    assert lines[("artifacts", 0)] == 3
    assert lines[("artifacts", 1, "destination")] == 4
    assert lines[("agent", "timeout_sec")] == 6
    assert lines[("verifier",)] == 8
    assert lines[("verifier", "note")] == 9
    assert ("fake",) not in lines
    assert lines[("verifier", "env", "A")] == 13
    assert lines[("verifier", "env", "B.C")] == 13
    assert lines[("verifier", "subtasks", 0, "name")] == 16
    assert lines[("verifier", "subtasks", 1)] == 18
    assert lines[("verifier", "subtasks", 1, "weight")] == 20
    assert lines[("steps", 0, "agent", "timeout_sec")] == 26
    assert lines[("steps", 1, "name")] == 29


def test_line_of_falls_back_to_the_closest_ancestor() -> None:
    lines = key_lines(SOURCE)
    assert line_of(lines, ("verifier", "subtasks", 1, "missing")) == 18
    assert line_of(lines, ("nowhere",)) is None


def test_scanner_survives_input_it_does_not_understand() -> None:
    assert key_lines("a = 1\n= oops\nb = 2\n") == {("a",): 1}


def test_first_redefinition() -> None:
    assert first_redefinition(SOURCE) is None
    assert first_redefinition("[a]\nx = 1\n\n[b]\n\n[a]\ny = 2\n") == (("a",), 6)
    assert first_redefinition("[a]\nx = 1\nx = 2\n") == (("a", "x"), 3)


def test_dotted() -> None:
    assert dotted(("verifier", "subtasks", 1, "weight")) == "verifier.subtasks[1].weight"
    assert dotted(()) == ""
