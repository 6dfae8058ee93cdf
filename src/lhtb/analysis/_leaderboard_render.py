"""Leaderboard outputs: JSON, CSV, Markdown and a rich table."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from rich.table import Table

    from lhtb.analysis._leaderboard import GroupScore, LeaderboardRow

_MISSING = "-"


def fmt_float(value: float | None, digits: int = 3) -> str:
    """A number for a table; ``-`` for unknown."""
    return _MISSING if value is None else f"{value:.{digits}f}"


def fmt_count(rate: float, tasks: int) -> str:
    """``3/5`` for a whole count, ``2.5/5`` for an expected one."""
    expected = rate * tasks
    text = f"{expected:.0f}" if abs(expected - round(expected)) < 1e-9 else f"{expected:.1f}"
    return f"{text}/{tasks} ({rate:.1%})"


def fmt_cost(value: float | None) -> str:
    """Dollars, or ``unknown`` when any episode's cost was unknown."""
    return "unknown" if value is None else f"${value:.2f}"


def fmt_horizon(row: LeaderboardRow) -> str:
    """The row's 50% time horizon as table text."""
    return _MISSING if row.horizon is None else row.horizon.describe()


def fmt_stamina(row: LeaderboardRow) -> str:
    """The mean reward at 25/50/75/100% of the budget, as ``0.10/0.40/0.55/0.60``."""
    if not row.reward_at_percent:
        return _MISSING
    return "/".join(f"{row.reward_at_percent[p]:.2f}" for p in sorted(row.reward_at_percent))


def _ks(rows: Sequence[LeaderboardRow]) -> list[int]:
    return sorted({k for row in rows for k in row.pass_at_k})


@attrs.frozen
class _Columns:
    """The table columns that depend on the rows: pass@k, and one per task tier."""

    ks: Sequence[int]
    tiers: Sequence[str]

    @classmethod
    def of(cls, rows: Sequence[LeaderboardRow]) -> _Columns:
        return cls(ks=_ks(rows), tiers=sorted({t.name for row in rows for t in row.tiers}))


def fmt_group(group: GroupScore | None) -> str:
    """A tier's (or category's) mean reward and solved count, as ``0.412 (1/8 solved)``."""
    if group is None:
        return _MISSING
    solved = fmt_count(group.solved_rate, group.tasks).split(" ", 1)[0]
    return f"{group.mean_reward:.3f} ({solved} solved)"


def to_json(data: dict[str, Any], *, indent: int | None) -> str:
    """Serialise the leaderboard dict."""
    return json.dumps(data, indent=indent, sort_keys=False)


_CSV_COLUMNS = (
    "agent",
    "model",
    "comparable",
    "not_comparable",
    "tasks",
    "episodes",
    "errors",
    "incomplete",
    "mean_reward",
    "solved_rate",
    "strict_rate",
    "solved",
    "strict",
    "mean_cost_usd",
    "mean_tokens",
    "mean_time_sec",
    "public_reward",
    "hidden_reward",
    "public_hidden_gap",
    "horizon_status",
    "horizon_min",
    "horizon_low_min",
    "horizon_high_min",
    "reward_at_25",
    "reward_at_50",
    "reward_at_75",
    "reward_at_100",
    "mean_auc",
)


def to_csv(rows: Sequence[LeaderboardRow]) -> str:
    """One line per row; unknown values are empty cells."""
    ks = _ks(rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*_CSV_COLUMNS, *(f"pass@{k}" for k in ks)])
    for row in rows:
        data = row.to_dict()
        data["not_comparable"] = "; ".join(row.not_comparable)
        horizon = row.horizon
        data.update(
            horizon_status=None if horizon is None else str(horizon.status),
            horizon_min=None if horizon is None else horizon.minutes,
            horizon_low_min=None if horizon is None else horizon.low,
            horizon_high_min=None if horizon is None else horizon.high,
            **{f"reward_at_{p}": row.reward_at_percent.get(p) for p in (25, 50, 75, 100)},
        )
        cells = ["" if data[c] is None else data[c] for c in _CSV_COLUMNS]
        cells.extend(row.pass_at_k.get(k, "") for k in ks)
        writer.writerow(cells)
    return out.getvalue()


def _headers(columns: _Columns) -> list[str]:
    return [
        "#",
        "agent",
        "model",
        "mean reward",
        "solved (R>=0.95)",
        "strict (R=1.0)",
        *(f"{tier} tier" for tier in columns.tiers),
        *(f"pass@{k}" for k in columns.ks),
        "cost/task",
        "tokens/task",
        "min/task",
        "public-hidden gap",
        "50% horizon min (95% CI)",
        "R @25/50/75/100% budget",
        "AUC",
        "errors",
    ]


def _cells(rank: str, row: LeaderboardRow, columns: _Columns) -> list[str]:
    gap = row.public_hidden_gap
    tiers = {t.name: t for t in row.tiers}
    errors = str(row.errors) + (f" (+{row.incomplete} incomplete)" if row.incomplete else "")
    return [
        rank,
        row.agent,
        row.model or _MISSING,
        fmt_float(row.mean_reward),
        fmt_count(row.solved_rate, row.tasks),
        fmt_count(row.strict_rate, row.tasks),
        *(fmt_group(tiers.get(tier)) for tier in columns.tiers),
        *(fmt_float(row.pass_at_k.get(k)) for k in columns.ks),
        fmt_cost(row.mean_cost_usd),
        f"{row.mean_tokens:,.0f}",
        f"{row.mean_time_sec / 60:.1f}",
        _MISSING if gap is None else f"{gap:+.3f}",
        fmt_horizon(row),
        fmt_stamina(row),
        fmt_float(row.mean_auc),
        errors,
    ]


def _md_table(headers: Sequence[str], lines: Sequence[Sequence[str]]) -> list[str]:
    def escape(cell: str) -> str:
        return cell.replace("|", "\\|")

    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out.extend("| " + " | ".join(escape(c) for c in line) + " |" for line in lines)
    return out


def to_markdown(
    rows: Sequence[LeaderboardRow], apart: Sequence[LeaderboardRow], n_tasks: int
) -> str:
    """The ranking, the non-comparable rows, and the per-category breakdown."""
    columns = _Columns.of([*rows, *apart])
    parts = [f"## Leaderboard ({n_tasks} tasks)", ""]
    if rows:
        lines = [_cells(str(i), row, columns) for i, row in enumerate(rows, 1)]
        parts.extend(_md_table(_headers(columns), lines))
    else:
        parts.append("No comparable episodes.")
    if apart:
        parts += ["", "## Not comparable (listed apart)", ""]
        headers = ["reason", *_headers(columns)[1:]]
        lines = [["; ".join(r.not_comparable), *_cells("", r, columns)[1:]] for r in apart]
        parts.extend(_md_table(headers, lines))
    categories = [(row, c) for row in [*rows, *apart] for c in row.categories]
    if categories:
        parts += ["", "## By category", ""]
        headers = ["agent", "model", "category", "tasks", "mean reward", "solved"]
        lines = [
            [
                row.agent + ("" if row.comparable else " (not comparable)"),
                row.model or _MISSING,
                c.name,
                str(c.tasks),
                fmt_float(c.mean_reward),
                fmt_count(c.solved_rate, c.tasks),
            ]
            for row, c in categories
        ]
        parts.extend(_md_table(headers, lines))
    return "\n".join(parts) + "\n"


def rich_table(
    rows: Sequence[LeaderboardRow], apart: Sequence[LeaderboardRow], n_tasks: int
) -> Table:
    """The ranking with the non-comparable rows below a divider, dimmed."""
    from rich.table import Table  # noqa: PLC0415 - rich loads only for terminal output

    columns = _Columns.of([*rows, *apart])
    table = Table(title=f"leaderboard ({n_tasks} tasks; errors count 0)")
    for header in _headers(columns):
        table.add_column(header, justify="left" if header in {"agent", "model"} else "right")
    for i, row in enumerate(rows, 1):
        table.add_row(*_cells(str(i), row, columns))
    if apart:
        table.add_section()
        for row in apart:
            reason = "; ".join(row.not_comparable)
            cells = _cells("", row, columns)
            cells[1] = f"{row.agent} [not comparable: {reason}]"
            table.add_row(*cells, style="dim")
    return table


def budget_scores(
    scores: Sequence[tuple[LeaderboardRow, float | None]], budget_sec: float, fmt: str
) -> str:
    """Each row's mean reward with a budget of ``budget_sec`` (``lhtb leaderboard --with-budget``).

    ``fmt`` is ``table`` or ``markdown`` (a Markdown table), ``csv`` or ``json``.
    """
    records = [
        {
            "agent": row.agent,
            "model": row.model,
            "comparable": row.comparable,
            "budget_sec": budget_sec,
            "mean_reward": score,
        }
        for row, score in scores
    ]
    if fmt == "json":
        return json.dumps(records, indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in records)
        return out.getvalue()
    headers = ["agent", "model", f"mean reward with a {budget_sec:g}s budget"]
    lines = [
        [
            row.agent + ("" if row.comparable else " (not comparable)"),
            row.model or _MISSING,
            fmt_float(score),
        ]
        for row, score in scores
    ]
    return "\n".join(_md_table(headers, lines)) + "\n"
