"""One episode on its budget clock: turns, verifier passes, checkpoints, reward curve.

An inline SVG: the reward curve (a step line, passes as dots, checkpoints as
squares) above three lanes with one mark per turn, pass and checkpoint. Every
mark has a tooltip; numbers are written inside a mark only where they fit.
"""

from __future__ import annotations

from html import escape
from itertools import pairwise

import attrs

from lhtb.analysis._stamina import has_curve, reward_curve
from lhtb.episode._record import Episode
from lhtb.report import _svg as svg
from lhtb.report._points import Graded, budget_clock, graded_points

_W = 860
_RIGHT, _TOP, _CURVE_H, _GAP, _LANE_H, _BOTTOM = 16, 12, 110, 12, 20, 34
_LEFT = 18 + svg.text_width("checkpoints")
_OUTCOME_COLOR = {
    "passed": "#2e7d4f",
    "failed": "#c28a1a",
    "graded": "#5b6fa8",
    "error": "#b3372f",
    "timeout": "#b3372f",
}
_TURN_COLOR = "#2f5fb3"
_CURVE_COLOR = "#1d2330"
_TICK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400)


def _tick_step(span: float, scale: float) -> float:
    """The smallest round step whose labels do not touch (and at most ~10 ticks)."""
    room = svg.text_width("00h00") + 12
    for step in _TICK_STEPS:
        if step * scale >= room and span / step <= 10:
            return float(step)
    return float(_TICK_STEPS[-1]) * max(1, round(span / _TICK_STEPS[-1] / 10))


def _clock_end(episode: Episode, points: list[Graded]) -> float:
    clock = budget_clock(episode)
    ends = [episode.config.budget_sec or 0.0]
    ends += [clock(t.started_at) + t.duration_sec for t in episode.turns]
    counts = episode.config.verifier_time_counts
    ends += [g.elapsed_sec + (g.duration_sec if counts and g.kind == "pass" else 0) for g in points]
    return max(*ends, 1.0)


@attrs.frozen
class _Frame:
    """Where things go: seconds on the budget clock to x, reward to y, lanes to y."""

    end: float
    lanes: tuple[str, ...]

    @property
    def scale(self) -> float:
        return (_W - _LEFT - _RIGHT) / self.end

    @property
    def axis_y(self) -> float:
        return _TOP + _CURVE_H + _GAP + _LANE_H * len(self.lanes)

    def x(self, seconds: float) -> float:
        return _LEFT + seconds * self.scale

    def y(self, reward: float) -> float:
        return _TOP + _CURVE_H * (1.0 - reward)

    def lane(self, name: str) -> float:
        return _TOP + _CURVE_H + _GAP + _LANE_H * self.lanes.index(name)


def _axes(frame: _Frame, budget: float | None) -> str:
    parts = [
        svg.reward_axis(_LEFT, _W - _RIGHT, frame.y, ticks=(0.0, 0.5, 1.0)),
        f'<text x="12" y="{_TOP + _CURVE_H / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 12 {_TOP + _CURVE_H / 2:.0f})">reward</text>',
    ]
    for name in frame.lanes:
        top = frame.lane(name)
        parts.append(
            f'<rect class="lane" x="{_LEFT:.1f}" y="{top + 1:.1f}" '
            f'width="{_W - _LEFT - _RIGHT:.1f}" height="{_LANE_H - 2}" fill="#f4f6f9"/>'
            + svg.label(_LEFT - 6, top + 14, name, max_px=_LEFT - 10, anchor="end")
        )
    step = _tick_step(frame.end, frame.scale)
    axis_y = frame.axis_y
    for tick in (step * i for i in range(int(frame.end // step) + 1)):
        x = frame.x(tick)
        parts.append(
            f'<line class="axis" x1="{x:.1f}" x2="{x:.1f}" y1="{axis_y:.1f}" '
            f'y2="{axis_y + 4:.1f}"/><text x="{x:.1f}" y="{axis_y + 15:.1f}" '
            f'text-anchor="middle">{svg.minutes_label(tick)}</text>'
        )
    if budget:
        x = frame.x(budget)
        parts.append(
            f'<line class="budget" x1="{x:.1f}" x2="{x:.1f}" y1="{_TOP}" y2="{axis_y:.1f}" '
            'stroke="#b3372f" stroke-dasharray="5 3">'
            f"<title>budget: {svg.minutes_label(budget)}</title></line>"
        )
    return "".join(parts)


def _turn_marks(frame: _Frame, episode: Episode) -> str:
    clock = budget_clock(episode)
    top = frame.lane("turns")
    parts = []
    for turn in episode.turns:
        x, width = frame.x(clock(turn.started_at)), max(1.5, turn.duration_sec * frame.scale)
        tip = (
            f"turn {turn.number}: {turn.duration_sec:.1f} s, {turn.end}, "
            f"{turn.usage.total_tokens:,} tokens" + (f", error: {turn.error}" if turn.error else "")
        )
        number = (
            f'<text class="in-mark" x="{x + width / 2:.1f}" y="{top + 14:.1f}" '
            f'text-anchor="middle">{turn.number}</text>'
            if width >= svg.text_width(str(turn.number), 10) + 4
            else ""
        )
        parts.append(
            f'<g class="mark turn"><title>{escape(tip)}</title><rect x="{x:.1f}" '
            f'y="{top + 3:.1f}" width="{width:.1f}" height="{_LANE_H - 6}" fill="{_TURN_COLOR}" '
            f'fill-opacity="0.35" stroke="{_TURN_COLOR}"/>{number}</g>'
        )
    return "".join(parts)


def _grading_marks(frame: _Frame, points: list[Graded], verifier_time_counts: bool) -> str:
    parts = []
    for g in points:
        lane = "passes" if g.kind == "pass" else "checkpoints"
        if lane not in frame.lanes:
            continue
        wide = verifier_time_counts and g.kind == "pass"
        width = max(3.0, g.duration_sec * frame.scale) if wide else 3.0
        parts.append(
            f'<g class="mark {g.kind} s-{g.status}"><title>{escape(g.detail)}</title>'
            f'<rect x="{frame.x(g.elapsed_sec) - 1.5:.1f}" y="{frame.lane(lane) + 3:.1f}" '
            f'width="{width:.1f}" height="{_LANE_H - 6}" fill="{_color(g)}"/></g>'
        )
    return "".join(parts)


def _reward_points(frame: _Frame, points: list[Graded]) -> str:
    parts = []
    for g in points:
        if g.reward is None:
            continue
        x, y = frame.x(g.elapsed_sec), frame.y(g.reward)
        shape = (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{_color(g)}" stroke="#fff"/>'
            if g.kind == "pass"
            else f'<rect x="{x - 3:.1f}" y="{y - 3:.1f}" width="6" height="6" fill="{_color(g)}"/>'
        )
        parts.append(
            f'<g class="reward-point {g.kind}"><title>{escape(g.detail)}</title>{shape}</g>'
        )
    return "".join(parts)


def _curve(frame: _Frame, episode: Episode, end: float) -> str:
    """The step line of :func:`lhtb.analysis.reward_curve`, held (dashed) to ``end``."""
    curve = reward_curve(episode)
    coords = [(frame.x(curve[0][0]), frame.y(curve[0][1]))]
    for (_, before), (time, reward) in pairwise(curve):
        coords += [(frame.x(time), frame.y(before)), (frame.x(time), frame.y(reward))]
    text = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    last_time, last_reward = curve[-1]
    hold = (
        f'<line class="reward-hold" x1="{frame.x(last_time):.1f}" x2="{frame.x(end):.1f}" '
        f'y1="{frame.y(last_reward):.1f}" y2="{frame.y(last_reward):.1f}" '
        f'stroke="{_CURVE_COLOR}" stroke-dasharray="3 3"/>'
        if end > last_time
        else ""
    )
    return (
        f'<polyline class="reward-curve" fill="none" stroke="{_CURVE_COLOR}" '
        f'stroke-width="1.5" points="{text}"/>{hold}'
    )


def _color(g: Graded) -> str:
    return _OUTCOME_COLOR.get(g.status, "#5f6b7a")


def timeline(anchor: str, episode: Episode) -> str:
    """The episode's timeline SVG and a note on its clock ("" without turns or gradings)."""
    points = graded_points(episode)
    if not episode.turns and not points:
        return ""
    config = episode.config
    checkpoints = bool(episode.checkpoints or config.checkpoint_interval_sec)
    frame = _Frame(
        end=_clock_end(episode, points),
        lanes=("turns", "passes", *(("checkpoints",) if checkpoints else ())),
    )
    timed = has_curve(episode)
    height = frame.axis_y + _BOTTOM
    chart = "".join(
        [
            svg.svg_open(
                f"timeline-{anchor}", _W, height, "reward and events on the budget clock"
            ).replace("<svg ", '<svg class="timeline" ', 1),
            _axes(frame, config.budget_sec),
            _turn_marks(frame, episode),
            _grading_marks(frame, points, config.verifier_time_counts),
            _curve(frame, episode, config.budget_sec or frame.end) if timed else "",
            _reward_points(frame, points),
            "</svg>",
        ]
    )
    clock_note = "budget clock from the first turn; verifier time " + (
        "counts" if config.verifier_time_counts else "does not count (the clock stops in passes)"
    )
    curve_note = (
        "step line: the reward of the last graded state, held (dashed) to the budget; "
        "the area under it is the AUC"
        if timed
        else "no timed reward curve (multi-step task, or a record without pass times)"
    )
    return (
        f'<h4>timeline</h4><div class="chart-wrap">{chart}</div>'
        f'<p class="note">{escape(clock_note)}. {escape(curve_note)}. Dots: verifier passes; '
        "squares: hidden checkpoints (the agent is not told of them).</p>"
    )
