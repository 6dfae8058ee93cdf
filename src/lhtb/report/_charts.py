"""The report's charts as inline markup: a reward-vs-cost SVG scatter and a heatmap."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape
from statistics import fmean

from lhtb.analysis._leaderboard import LeaderboardRow, not_comparable_reasons
from lhtb.episode._record import Episode
from lhtb.report import _svg as svg

_H = 330
_LEFT, _TOP, _BOTTOM = 48, 20, 44
_LANE, _GAP, _PLOT = 64, 16, 420
_SPOT = 18.0
"""The room one numbered point needs (its diameter, stroke and a gap)."""
_RINGS = 12
_LEGEND = 260
"""The widest legend label (px); longer row names are cut, with a tooltip."""
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


def _cost_unknown(episodes: Sequence[Episode]) -> dict[str, tuple[int, int]]:
    """Per row key: how many of its episodes have no cost, out of how many."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for episode in episodes:
        entry = counts[episode_key(episode)]
        entry[0] += episode.usage.cost_usd is None
        entry[1] += 1
    return {key: (unknown, total) for key, (unknown, total) in counts.items()}


def _dollars(value: float) -> str:
    """``$0.25``, ``$0.125``, ``$1,200.00``: cents, or as many digits as a tick needs."""
    text = f"{value:,.4f}".rstrip("0")
    return f"${text}" if len(text.split(".")[1]) > 2 else f"${value:,.2f}"


def _free_spot(
    x: float,
    y: float,
    placed: Sequence[tuple[float, float]],
    box: tuple[float, float, float, float],
) -> tuple[float, float]:
    """The spot nearest ``(x, y)`` inside ``box`` that no placed point covers.

    Points that would sit on each other (same cost and reward) are moved apart
    on a grid of their own size; each keeps a line to where it belongs.
    """
    left, top, right, bottom = box
    for ring in range(_RINGS):
        spots = [
            (x + dx * _SPOT, y + dy * _SPOT)
            for dx in range(-ring, ring + 1)
            for dy in range(-ring, ring + 1)
            if max(abs(dx), abs(dy)) == ring
        ]
        spots.sort(key=lambda s: (s[0] - x) ** 2 + (s[1] - y) ** 2)
        for sx, sy in spots:
            inside = left <= sx <= right and top <= sy <= bottom
            if inside and all((sx - px) ** 2 + (sy - py) ** 2 >= _SPOT**2 for px, py in placed):
                return sx, sy
    return x, y


def scatter(rows: Sequence[LeaderboardRow], episodes: Sequence[Episode]) -> str:
    """Mean reward (y) against mean cost per task (x), one numbered point per row.

    Rows whose cost is unknown (any episode without a cost) sit in a shaded
    "cost unknown" lane left of the cost axis, never at $0; non-comparable
    rows are hollow. The legend names the numbers, cut to fit with the full
    name as a tooltip.
    """
    unknown = _cost_unknown(episodes)
    names = [row_key(r.agent, r.model, r.not_comparable) for r in rows]
    legend_w = min(max((svg.text_width(f"{len(rows)}  {n}") for n in names), default=0), _LEGEND)
    width = _LEFT + _LANE + _GAP + _PLOT + 24 + 16 + legend_w + 8
    height = max(_H, _TOP + 18 * len(rows) + _BOTTOM)
    costs = [r.mean_cost_usd for r in rows if r.mean_cost_usd is not None]
    top = max(costs, default=0.0) or 1.0
    plot_left = _LEFT + _LANE + _GAP
    plot_h = height - _TOP - _BOTTOM
    lane_rows = [i for i, r in enumerate(rows) if r.mean_cost_usd is None]

    def x_of(cost: float) -> float:
        return plot_left + _PLOT * cost / top

    def y_of(reward: float) -> float:
        return _TOP + plot_h * (1.0 - reward)

    parts = [
        svg.svg_open("scatter", width, height, "mean reward against mean cost per task"),
        svg.reward_axis(_LEFT, plot_left + _PLOT, y_of),
        f'<g class="cost-unknown-lane"><rect x="{_LEFT}" y="{_TOP}" width="{_LANE}" '
        f'height="{plot_h:.1f}" fill="#eef0f4"/>'
        f'<text x="{_LEFT + _LANE / 2:.1f}" y="{height - _BOTTOM + 18:.1f}" '
        'text-anchor="middle">cost</text>'
        f'<text x="{_LEFT + _LANE / 2:.1f}" y="{height - _BOTTOM + 31:.1f}" '
        'text-anchor="middle">unknown</text></g>',
    ]
    for i in range(5):
        x = x_of(top * i / 4)
        parts.append(
            f'<line class="axis" x1="{x:.1f}" x2="{x:.1f}" y1="{height - _BOTTOM}" '
            f'y2="{height - _BOTTOM + 4}"/>'
            f'<text x="{x:.1f}" y="{height - _BOTTOM + 18}" text-anchor="middle">'
            f"{_dollars(top * i / 4)}</text>"
        )
    parts.append(
        f'<line class="axis" x1="{plot_left}" x2="{plot_left}" y1="{_TOP}" '
        f'y2="{height - _BOTTOM}"/><line class="axis" x1="{plot_left}" '
        f'x2="{plot_left + _PLOT}" y1="{height - _BOTTOM}" y2="{height - _BOTTOM}"/>'
        f'<text x="{plot_left + _PLOT / 2:.0f}" y="{height - 6}" text-anchor="middle">'
        "mean cost per task (USD)</text>"
        f'<text x="14" y="{_TOP + plot_h / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + plot_h / 2:.0f})">mean reward</text>'
    )
    legend_x = plot_left + _PLOT + 24
    placed: list[tuple[float, float]] = []
    for i, (row, name) in enumerate(zip(rows, names, strict=True)):
        color = PALETTE[i % len(PALETTE)]
        cost = row.mean_cost_usd
        if cost is None:
            slot = lane_rows.index(i)
            x0 = _LEFT + _LANE * (slot + 1) / (len(lane_rows) + 1)
            box = (_LEFT + _SPOT / 2, _LEFT + _LANE - _SPOT / 2)
            missing, total = unknown.get(name, (0, 0))
            cost_text = f"unknown ({missing} of {total} episodes without a cost)"
        else:
            x0, cost_text = x_of(cost), f"${cost:.2f}"
            box = (plot_left, plot_left + _PLOT + 8)
        y0 = y_of(row.mean_reward)
        x, y = _free_spot(x0, y0, placed, (box[0], _TOP, box[1], _TOP + plot_h))
        placed.append((x, y))
        leader = (
            f'<line class="leader" x1="{x0:.1f}" y1="{y0:.1f}" x2="{x:.1f}" y2="{y:.1f}" '
            f'stroke="{color}"/>'
            if (x, y) != (x0, y0)
            else ""
        )
        hollow = bool(row.not_comparable)
        tip = f"{name}: mean reward {row.mean_reward:.3f}, cost {cost_text}"
        parts.append(
            f'<g class="point{" unknown-cost" if cost is None else ""}"><title>'
            f'{escape(tip)}</title>{leader}<circle cx="{x:.1f}" cy="{y:.1f}" r="8" '
            f'fill="{"#fff" if hollow else color}" stroke="{color}" stroke-width="2"/>'
            f'<text class="num" x="{x:.1f}" y="{y + 3.5:.1f}" text-anchor="middle" '
            f'style="fill:{color if hollow else "#fff"}">{i + 1}</text></g>'
        )
        ly = _TOP + 18 * i + 8
        parts.append(
            f'<g class="legend"><rect x="{legend_x}" y="{ly - 8}" width="10" height="10" '
            f'fill="{color}"/>'
            + svg.label(legend_x + 16, ly + 1, f"{i + 1}  {name}", max_px=legend_w)
            + "</g>"
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
