"""How lhtb's records look in a notebook (``_repr_html_``) and in a terminal (``__rich__``).

Each displayable class builds a :class:`View` (a title, a few facts, a table) in
its own ``_view`` method, next to the fields it shows; this module renders a view
as HTML or as a rich renderable (rich is imported only then) and imports none of
the types it displays.
"""

from __future__ import annotations

from html import escape
from typing import Any

import attrs

__all__ = ["Displayable", "View", "number"]


@attrs.frozen
class View:
    """What a record shows: a title, ``name: value`` facts, and a table."""

    title: str
    facts: tuple[tuple[str, str], ...] = ()
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    note: str = ""

    def html(self) -> str:
        """A self-contained HTML fragment."""
        parts = [f"<div class='lhtb'><strong>{escape(self.title)}</strong>"]
        if self.facts:
            items = "".join(
                f"<tr><th style='text-align:left'>{escape(k)}</th><td>{escape(v)}</td></tr>"
                for k, v in self.facts
            )
            parts.append(f"<table>{items}</table>")
        if self.rows:
            head = "".join(f"<th>{escape(h)}</th>" for h in self.headers)
            body = "".join(
                "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
                for row in self.rows
            )
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        if self.note:
            parts.append(f"<p><em>{escape(self.note)}</em></p>")
        parts.append("</div>")
        return "".join(parts)

    def rich(self) -> Any:
        """A rich renderable (a facts grid over a table)."""
        from rich.console import Group  # noqa: PLC0415 - rich loads only for display
        from rich.table import Table  # noqa: PLC0415
        from rich.text import Text  # noqa: PLC0415

        facts = Table.grid(padding=(0, 2))
        for key, value in self.facts:
            facts.add_row(Text(key, style="bold"), Text(value))
        parts: list[Any] = [Text(self.title, style="bold"), facts]
        if self.rows:
            table = Table(*self.headers)
            for row in self.rows:
                table.add_row(*(Text(cell) for cell in row))
            parts.append(table)
        if self.note:
            parts.append(Text(self.note, style="dim"))
        return Group(*parts)


class Displayable:
    """Gives a class ``_repr_html_`` and ``__rich__`` from its :meth:`_view`."""

    __slots__ = ()

    def _view(self) -> View:
        raise NotImplementedError

    def _repr_html_(self) -> str:
        """HTML for Jupyter."""
        return self._view().html()

    def __rich__(self) -> Any:
        """A rich renderable for ``rich.print``."""
        return self._view().rich()


def number(value: float | None, digits: int = 3) -> str:
    """A number for a table; ``-`` for unknown."""
    return "-" if value is None else f"{value:.{digits}f}"
