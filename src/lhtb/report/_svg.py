"""Small helpers for the report's inline SVG: text widths, fitted labels, axes.

No font metrics are available when the report is written, so widths are
estimated on the wide side (DejaVu Sans, the widest common sans-serif), which
keeps a label inside its box in any browser. A label that does not fit is cut
with an ellipsis and keeps its full text as a ``<title>`` tooltip.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

FONT_PX = 11.0
"""The size of chart text (the report's CSS sets ``svg text`` to 11px)."""

_NARROW = frozenset("iljtfI.,:;'|!()[]{} /\\")
_WIDE = frozenset("mwMW@%")
_ELLIPSIS = "\u2026"


def _em(char: str) -> float:
    if char in _NARROW:
        return 0.4
    if char in _WIDE:
        return 1.0
    if char.isupper() or char in "#&+=<>~_":
        return 0.8
    return 0.65


def text_width(text: str, size: float = FONT_PX) -> float:
    """An upper estimate of ``text``'s width in pixels at ``size``."""
    return size * sum(_em(c) for c in text)


def fit_text(text: str, max_px: float, size: float = FONT_PX) -> str:
    """``text``, cut and ended with an ellipsis so that it fits in ``max_px``."""
    if text_width(text, size) <= max_px:
        return text
    budget = max_px - text_width(_ELLIPSIS, size)
    used = 0.0
    for i, char in enumerate(text):
        used += size * _em(char)
        if used > budget:
            return text[:i].rstrip() + _ELLIPSIS
    return text


def label(
    x: float,
    y: float,
    text: str,
    *,
    max_px: float,
    anchor: str = "start",
    css: str = "",
    extra: str = "",
) -> str:
    """A ``<text>`` that fits in ``max_px``; a cut label keeps its full text as a tooltip."""
    shown = fit_text(text, max_px)
    tooltip = f"<title>{escape(text)}</title>" if shown != text else ""
    klass = f' class="{css}"' if css else ""
    return (
        f'<text{klass} x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>'
        f"{tooltip}{escape(shown)}</text>"
    )


def svg_open(element_id: str, width: float, height: float, description: str) -> str:
    """The opening ``<svg>`` tag of a chart of ``width`` x ``height`` pixels."""
    return (
        f'<svg id="{element_id}" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="{escape(description)}">'
    )


def reward_axis(
    x_left: float,
    x_right: float,
    y_of_reward: Callable[[float], float],
    ticks: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0),
) -> str:
    """Horizontal grid lines and left labels for a 0-1 reward axis."""
    parts = []
    for tick in ticks:
        y = y_of_reward(tick)
        parts.append(
            f'<line class="grid" x1="{x_left:.1f}" x2="{x_right:.1f}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text x="{x_left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end">{tick:.2f}</text>'
        )
    return "".join(parts)


def minutes_label(seconds: float) -> str:
    """A budget-clock tick: ``45s``, ``12m``, ``1h30``."""
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes = seconds / 60
    if minutes < 120:
        return f"{minutes:.0f}m" if abs(minutes - round(minutes)) < 0.05 else f"{minutes:.1f}m"
    hours, rest = divmod(round(minutes), 60)
    return f"{hours}h" if rest == 0 else f"{hours}h{rest:02d}"
