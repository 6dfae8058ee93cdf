"""The report's charts as inline markup: a reward-vs-cost SVG scatter and a heatmap."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape
from statistics import fmean

from lhtb.episode import Episode
from lhtb.leaderboard import LeaderboardRow, not_comparable_reasons

_W, _H = 640, 330
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 120, 20, 44
_UNKNOWN_BAND = 70
PALETTE = ("#2f5fb3", "#c2571a", "#2e7d4f", "#8e3fa8", "#b3372f", "#1f8a8a", "#6b6b1f")


def row_key(agent: str, model: str | None, reasons: Sequence[str]) -> str:
    """How charts and tables name a leaderboard row."""
    name = agent if not model else f"{agent} / {model}"
    return f"{name} (not comparable: {'; '.join(reasons)})" if reasons else name


def episode_key(episode: Episode) -> str:
    """The leaderboard row an episode belongs to."""
    return row_key(episode.config.agent, episode.config.model, not_comparable_reasons(episode))


def reward_color(reward: float) -> str:
    """Red (0) through amber to green (1)."""
    hue = 120.0 * max(0.0, min(1.0, reward))
    return f"hsl({hue:.0f}, 62%, 38%)"


def scatter(rows: Sequence[LeaderboardRow]) -> str:
    """Mean reward (y) against mean cost per task (x), one point per row.

    Rows with unknown cost sit in a band left of the axis; non-comparable
    rows are hollow.
    """
    costs = [r.mean_cost_usd for r in rows if r.mean_cost_usd is not None]
    top = max(costs, default=0.0) or 1.0
    plot_left = _LEFT + _UNKNOWN_BAND
    width = _W - plot_left - _RIGHT
    height = _H - _TOP - _BOTTOM

    def x_of(cost: float) -> float:
        return plot_left + width * cost / top

    def y_of(reward: float) -> float:
        return _TOP + height * (1.0 - reward)

    parts = [
        f'<svg id="scatter" xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
        f'viewBox="0 0 {_W} {_H}" role="img" aria-label="mean reward against mean cost per task">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        parts.append(
            f'<line class="grid" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:.2f}</text>'
        )
    for i in range(5):
        tick_cost = top * i / 4
        x = x_of(tick_cost)
        parts.append(
            f'<line class="axis" x1="{x:.1f}" x2="{x:.1f}" y1="{_H - _BOTTOM}" '
            f'y2="{_H - _BOTTOM + 4}"/>'
            f'<text x="{x:.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle">'
            f"${tick_cost:.2f}</text>"
        )
    parts.append(
        f'<line class="axis" x1="{plot_left}" x2="{plot_left}" y1="{_TOP}" y2="{_H - _BOTTOM}"/>'
        f'<line class="axis" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{_H - _BOTTOM}" '
        f'y2="{_H - _BOTTOM}"/>'
        f'<text x="{_LEFT + _UNKNOWN_BAND / 2:.0f}" y="{_H - _BOTTOM - 6}" '
        'text-anchor="middle">cost unknown</text>'
        f'<text x="{plot_left + width / 2:.0f}" y="{_H - 6}" text-anchor="middle">'
        "mean cost per task (USD)</text>"
        f'<text x="14" y="{_TOP + height / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + height / 2:.0f})">mean reward</text>'
    )
    for i, row in enumerate(rows):
        color = PALETTE[i % len(PALETTE)]
        cost = row.mean_cost_usd
        x = _LEFT + _UNKNOWN_BAND / 2 if cost is None else x_of(cost)
        y = y_of(row.mean_reward)
        name = row_key(row.agent, row.model, row.not_comparable)
        fill = "none" if row.not_comparable else color
        cost_text = "unknown" if cost is None else f"${cost:.2f}"
        parts.append(
            f'<g class="point"><circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{fill}" '
            f'stroke="{color}" stroke-width="2"><title>{escape(name)}: mean reward '
            f"{row.mean_reward:.3f}, cost {cost_text}</title></circle>"
            f'<text x="{x + 9:.1f}" y="{y + 4:.1f}">{escape(name)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def heatmap(episodes: Sequence[Episode], columns: Sequence[str], anchors: dict[int, str]) -> str:
    """Task x agent table of mean final reward; each cell links to the first episode.

    ``anchors`` maps ``id(episode)`` to the episode section's HTML id.
    """
    cells: dict[tuple[str, str], list[Episode]] = defaultdict(list)
    for episode in episodes:
        cells[(episode.config.task_name, episode_key(episode))].append(episode)
    tasks = sorted({e.config.task_name for e in episodes})
    head = "".join(f'<th class="col" title="{escape(c)}">{escape(c)}</th>' for c in columns)
    lines = [f'<table class="heatmap" id="heatmap"><thead><tr><th class="l">task</th>{head}</tr>']
    lines.append("</thead><tbody>")
    for task in tasks:
        row = [f'<tr><th class="l">{escape(task)}</th>']
        for column in columns:
            chosen = cells.get((task, column))
            if not chosen:
                row.append('<td class="cell empty">-</td>')
                continue
            mean = fmean(e.reward or 0.0 for e in chosen)
            detail = ", ".join(
                f"#{e.attempt} {e.outcome} " + ("-" if e.reward is None else f"{e.reward:.3f}")
                for e in sorted(chosen, key=lambda e: e.attempt)
            )
            first = min(chosen, key=lambda e: e.attempt)
            row.append(
                f'<td class="cell" data-v="{mean:.4f}" style="background:{reward_color(mean)}" '
                f'title="{escape(task)} / {escape(column)}: {escape(detail)}">'
                f'<a href="#{anchors[id(first)]}">{mean:.2f}</a></td>'
            )
        row.append("</tr>")
        lines.append("".join(row))
    lines.append("</tbody></table>")
    return "".join(lines)
