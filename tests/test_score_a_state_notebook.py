"""``examples/score_a_state.ipynb`` runs headless (nbclient + ipykernel, local backend)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOTEBOOK = EXAMPLES / "score_a_state.ipynb"


def outputs(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", ()) if o.output_type == "stream")


@pytest.mark.slow
@pytest.mark.usefixtures("local_backend")  # the notebook runs on the local backend
def test_the_notebook_grades_a_partial_fix_then_the_whole_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = os.environ.get("PYTHONPATH", "")  # the kernel imports this checkout's lhtb
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(EXAMPLES.parent / "src"), path]))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells), "commit it without outputs"
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": EXAMPLES}}
    )
    client.execute()
    text = "\n".join(outputs(cell) for cell in notebook.cells if cell.cell_type == "code")
    rewards = [float(r) for r in re.findall(r"^reward: (\d\.\d{3}) ", text, flags=re.MULTILINE)]
    assert len(rewards) == 4, text
    untouched, partial, whole, from_files = rewards
    assert untouched < partial < 0.95, text
    assert whole == from_files == 1.0, text
    assert re.search(r"sample_matches\s+public\s+1\.00", text), text
    assert "seed 7" in text
