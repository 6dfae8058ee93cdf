"""The report's time-horizon chart: fitted P(solved) against task time, tasks as points."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from lhtb.analysis._leaderboard import Leaderboard, LeaderboardRow
from lhtb.report import _svg as svg
from lhtb.report._charts import PALETTE, row_key

_W, _H = 780, 340
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 290, 20, 44
_CURVE_STEPS = 80


def _label(minutes: float) -> str:
    return f"{minutes / 60:g}h" if minutes >= 120 else f"{minutes:g}m"


def _legend(row: LeaderboardRow) -> str:
    name = row_key(row.agent, row.model, ()) + (" (not comparable)" if row.not_comparable else "")
    horizon = row.horizon
    text = "-" if horizon is None else horizon.describe()
    return f"{name}: {text}"


def horizon_chart(board: Leaderboard) -> str:
    """An SVG of each row's logistic fit over log2(minutes), tasks as points.

    A point is one task of one row at its time and solved share; its tooltip
    names the task and whether its time was measured or estimated. A dashed
    line marks each estimated horizon. Rows without an estimated horizon show
    points only (the legend says what is known instead).
    """
    rows: Sequence[LeaderboardRow] = [*board.rows, *board.apart]
    times = list(board.task_minutes.values())
    if not times:
        return (
            '<p class="note" id="horizon-none">No task has a time (a measured human baseline '
            "or <code>expert_time_estimate_min</code>): no time horizon.</p>"
        )
    lo = math.floor(math.log2(min(times))) - 1
    hi = math.ceil(math.log2(max(times))) + 1
    full_h = max(_H, _TOP + 18 * len(rows) + 8)
    width = _W - _LEFT - _RIGHT
    height = full_h - _TOP - _BOTTOM

    def x_of(minutes: float) -> float:
        return _LEFT + width * (math.log2(minutes) - lo) / (hi - lo)

    def y_of(p: float) -> float:
        return _TOP + height * (1.0 - p)

    parts = [
        svg.svg_open("horizon", _W, full_h, "fitted chance of solving against task time"),
        svg.reward_axis(_LEFT, _W - _RIGHT, y_of),
    ]
    step = max(1, (hi - lo) // 8)
    for power in range(lo, hi + 1, step):
        x = x_of(2.0**power)
        parts.append(
            f'<line class="axis" x1="{x:.1f}" x2="{x:.1f}" y1="{full_h - _BOTTOM}" '
            f'y2="{full_h - _BOTTOM + 4}"/><text x="{x:.1f}" y="{full_h - _BOTTOM + 18}" '
            f'text-anchor="middle">{_label(2.0**power)}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{_LEFT}" x2="{_LEFT}" y1="{_TOP}" y2="{full_h - _BOTTOM}"/>'
        f'<line class="axis" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{full_h - _BOTTOM}" '
        f'y2="{full_h - _BOTTOM}"/>'
        f'<text x="{_LEFT + width / 2:.0f}" y="{full_h - 6}" text-anchor="middle">'
        "task time (log scale; measured human time, else expert estimate)</text>"
        f'<text x="14" y="{_TOP + height / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + height / 2:.0f})">P(solved)</text>'
    )
    for i, row in enumerate(rows):
        color = PALETTE[i % len(PALETTE)]
        horizon = row.horizon
        name = escape(row_key(row.agent, row.model, row.not_comparable))
        if horizon is not None and horizon.estimated and horizon.fit is not None:
            fit = horizon.fit
            coords = " ".join(
                f"{x_of(2.0**power):.1f},{y_of(fit.probability(2.0**power)):.1f}"
                for power in (lo + (hi - lo) * k / _CURVE_STEPS for k in range(_CURVE_STEPS + 1))
            )
            parts.append(
                f'<polyline class="curve" fill="none" stroke="{color}" stroke-width="2" '
                f'points="{coords}"><title>{name}</title></polyline>'
            )
        if horizon is not None and horizon.estimated and horizon.minutes is not None:
            x = x_of(min(max(horizon.minutes, 2.0**lo), 2.0**hi))
            parts.append(
                f'<line class="horizon-mark" x1="{x:.1f}" x2="{x:.1f}" y1="{_TOP}" '
                f'y2="{full_h - _BOTTOM}" stroke="{color}" stroke-dasharray="4 3"/>'
            )
        for point in horizon.points if horizon is not None else ():
            source = "measured" if point.task in board.measured else "estimated"
            fill = "none" if row.not_comparable else color
            parts.append(
                f'<circle class="task-point" cx="{x_of(point.minutes):.1f}" '
                f'cy="{y_of(point.solved):.1f}" r="4" fill="{fill}" fill-opacity="0.6" '
                f'stroke="{color}"><title>{name} · {escape(point.task)}: '
                f"{point.minutes:g} min ({source}), solved {point.solved:.2f}</title></circle>"
            )
        y = _TOP + 18 * i + 8
        parts.append(
            f'<rect x="{_W - _RIGHT + 12}" y="{y - 8}" width="10" height="10" fill="{color}"/>'
            + svg.label(_W - _RIGHT + 28, y + 1, _legend(row), max_px=_RIGHT - 32, css="legend")
        )
    parts.append("</svg>")
    return "".join(parts)


def horizon_note(board: Leaderboard) -> str:
    """Where the task times came from and how many tasks had none."""
    return (
        '<p class="note" id="horizon-sources">Logistic fit of each task\'s solved share on '
        "log2(task minutes), with a bootstrap 95% interval over tasks. "
        f"{escape(board.time_note())}.</p>"
    )
