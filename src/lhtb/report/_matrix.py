"""The subtask x grading matrix: how each subtask's score moved over an episode."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from lhtb.report._charts import reward_color
from lhtb.report._points import Graded
from lhtb.report._svg import minutes_label


def _cell(score: float | None, tip: str) -> str:
    if score is None:
        return f'<td class="cell empty" title="{escape(tip)}">-</td>'
    return (
        f'<td class="cell" style="background:{reward_color(score)}" '
        f'title="{escape(tip)}: {score:.3f}">{score:.2f}</td>'
    )


def subtask_matrix(points: Sequence[Graded]) -> str:
    """Rows are subtasks, columns the passes and checkpoints in time order; "" if < 2 columns.

    A cell is the subtask's score at that grading, shaded red to green; ``-``
    where the grading produced no scorecard or the subtask was not in it. The
    last row is the reward.
    """
    graded = [g for g in points if g.scorecard is not None and g.scorecard.subtasks]
    if len(graded) < 2:
        return ""
    names: dict[str, str] = {}
    for g in graded:
        assert g.scorecard is not None
        for subtask in g.scorecard.subtasks:
            names.setdefault(subtask.name, str(subtask.visibility))
    head = "".join(
        f'<th class="col {g.kind}" title="{escape(g.detail)}">{g.short}</th>' for g in points
    )
    times = "".join(f'<th class="time">{minutes_label(g.elapsed_sec)}</th>' for g in points)
    lines = []
    for name, visibility in names.items():
        cells = []
        for g in points:
            scores = {s.name: s.score for s in g.scorecard.subtasks} if g.scorecard else {}
            cells.append(_cell(scores.get(name), f"{name} at {g.short}"))
        lines.append(
            f'<tr><th class="l" title="{escape(visibility)}">{escape(name)}</th>'
            f"{''.join(cells)}</tr>"
        )
    rewards = "".join(_cell(g.reward, f"reward at {g.short}") for g in points)
    lines.append(f'<tr class="reward"><th class="l">reward</th>{rewards}</tr>')
    return (
        f"<h4>subtasks over time ({len(names)} subtasks x {len(points)} gradings)</h4>"
        '<div class="matrix-wrap"><table class="matrix"><thead>'
        f'<tr><th class="l">subtask</th>{head}</tr>'
        f'<tr><th class="l note">budget clock</th>{times}</tr></thead>'
        f"<tbody>{''.join(lines)}</tbody></table></div>"
    )
