"""Each agent's mean reward over its budget: the report's stamina chart."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape

from lhtb.analysis._leaderboard import LeaderboardRow
from lhtb.analysis._stamina import fraction_rewards, has_curve
from lhtb.episode._record import Episode
from lhtb.report import _svg as svg
from lhtb.report._charts import PALETTE, episode_key, row_key

_H = 300
_LEFT, _TOP, _BOTTOM, _PLOT = 56, 16, 40, 480
_LEGEND = 280
_PERCENTS = tuple(range(101))
"""The curves are drawn at every whole percent of the budget."""


def agent_curves(rows: Sequence[LeaderboardRow], episodes: Sequence[Episode]) -> str:
    """An SVG with one line per row: its mean reward at each percent of the budget.

    A row's value at p% is the task-averaged reward of its episodes' states at
    p% of each one's own budget (:func:`lhtb.analysis.fraction_rewards`), so the
    line at 100% is the row's reward at the deadline. Rows whose episodes have
    no timed curve are named in a note instead.
    """
    by_row: dict[str, list[Episode]] = defaultdict(list)
    for episode in episodes:
        by_row[episode_key(episode)].append(episode)
    names = [row_key(r.agent, r.model, r.not_comparable) for r in rows]
    drawn = [(i, n) for i, n in enumerate(names) if any(map(has_curve, by_row[n]))]
    missing = [n for n in names if not any(map(has_curve, by_row[n]))]
    note = (
        f'<p class="note" id="curves-missing">No timed reward curve: {escape(", ".join(missing))} '
        "(multi-step tasks, or records written before lhtb timed its passes).</p>"
        if missing
        else ""
    )
    if not drawn:
        return note
    legend_w = min(max(svg.text_width(n) for _, n in drawn), _LEGEND)
    width = _LEFT + _PLOT + 24 + 16 + legend_w + 8
    height = max(_H, _TOP + 18 * len(drawn) + _BOTTOM)
    plot_h = height - _TOP - _BOTTOM

    def x_of(percent: float) -> float:
        return _LEFT + _PLOT * percent / 100

    def y_of(reward: float) -> float:
        return _TOP + plot_h * (1.0 - reward)

    parts = [
        svg.svg_open("curves", width, height, "mean reward over the budget, per agent"),
        svg.reward_axis(_LEFT, _LEFT + _PLOT, y_of),
        f'<text x="14" y="{_TOP + plot_h / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + plot_h / 2:.0f})">mean reward</text>'
        f'<text x="{_LEFT + _PLOT / 2:.0f}" y="{height - 6}" text-anchor="middle">'
        "share of the budget used</text>",
    ]
    for percent in (0, 25, 50, 75, 100):
        x = x_of(percent)
        parts.append(
            f'<line class="axis" x1="{x:.1f}" x2="{x:.1f}" y1="{height - _BOTTOM}" '
            f'y2="{height - _BOTTOM + 4}"/><text x="{x:.1f}" y="{height - _BOTTOM + 18}" '
            f'text-anchor="middle">{percent}%</text>'
        )
    legend_x = _LEFT + _PLOT + 24
    for slot, (i, name) in enumerate(drawn):
        color = PALETTE[i % len(PALETTE)]
        values = fraction_rewards(by_row[name], tuple(p / 100 for p in _PERCENTS))
        coords = " ".join(f"{x_of(f * 100):.1f},{y_of(r):.1f}" for f, r in values.items())
        quarters = ", ".join(f"{f:.0%}: {values[f]:.3f}" for f in (0.25, 0.5, 0.75, 1.0))
        timed = sum(map(has_curve, by_row[name]))
        tip = f"{name}: mean reward at {quarters} of the budget ({timed} timed episodes)"
        y = _TOP + 18 * slot + 8
        parts.append(
            f'<g class="agent-curve"><title>{escape(tip)}</title><polyline fill="none" '
            f'stroke="{color}" stroke-width="2" points="{coords}"/></g>'
            f'<g class="legend"><rect x="{legend_x}" y="{y - 8}" width="10" height="10" '
            f'fill="{color}"/>' + svg.label(legend_x + 16, y + 1, name, max_px=legend_w) + "</g>"
        )
    parts.append("</svg>")
    return f'<div class="chart-wrap">{"".join(parts)}</div>{note}'
