"""The example notebook runs headless (nbclient, a real ipykernel) and every record displays."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from rich.console import Console

import lhtb
from lhtb.verify import Scorecard, Subtask

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "examples" / "score_one_task.ipynb"


def outputs(cell: nbformat.NotebookNode, kind: str) -> str:
    found = []
    for output in cell.get("outputs", []):
        if kind == "stream" and output.get("output_type") == "stream":
            found.append(output.get("text", ""))
        elif kind in output.get("data", {}):
            found.append(output["data"][kind])
    return "".join(found)


def test_the_example_notebook_runs_headless(
    local_backend: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO / "src"), path]))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3").execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [o for c in code for o in c.get("outputs", []) if o["output_type"] == "error"] == []
    task_html, episode_html, scorecard_html, result_html, board_html = (
        outputs(cell, "text/html") for cell in code
    )
    assert "Task answer" in task_html
    assert "<td>solved</td>" in episode_html  # top-level await
    assert "<td>note</td><td>1.000</td>" in episode_html  # the per-subtask scorecard
    assert "answer / answer: solved, reward 1.000" in outputs(code[1], "stream")  # progress
    assert "<td>note</td><td>1.000</td>" in scorecard_html  # the sync wrapper in a live loop
    assert "<td>nop</td>" in result_html
    assert board_html.index("<td>answer</td>") < board_html.index("<td>nop</td>")


def test_records_render_for_rich_and_repr_short() -> None:
    card = Scorecard(reward=0.5, subtasks=(Subtask("a", 1.0), Subtask("b", 0.0)))
    task = lhtb.Task(name="t/x", instruction="Do it.\nDetails.", agent=lhtb.AgentConfig(60))
    console = Console(record=True, width=120)
    console.print(card, task)
    text = console.export_text()
    assert "Scorecard: reward 0.500" in text
    assert "Task t/x" in text
    assert repr(card) == "Scorecard(reward=0.5, subtasks=2)"
    assert repr(task) == "Task(name='t/x', category=None, path=None)"
    board = lhtb.Leaderboard.from_episodes(())
    assert "Leaderboard (0 tasks" in board._repr_html_()
