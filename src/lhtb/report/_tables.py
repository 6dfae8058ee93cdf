"""The report's tables: the leaderboard, the categories, and the task-set warning."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape
from typing import Literal

from lhtb.analysis import _leaderboard_render as fmt
from lhtb.analysis._leaderboard import Leaderboard, LeaderboardRow
from lhtb.analysis._stamina import BUDGET_FRACTIONS
from lhtb.episode._record import Episode
from lhtb.report._charts import episode_key, row_key

_PERCENTS = tuple(round(share * 100) for share in BUDGET_FRACTIONS)
"""The budget shares (percent) of the leaderboard's reward-over-time columns."""
_MISSING_NAMES = 5
"""How many missing task names the task-set warning lists per row."""


def num(value: float | None, digits: int = 3) -> str:
    """A number for a table; ``-`` for unknown."""
    return "-" if value is None else f"{value:.{digits}f}"


def _horizon_value(row: LeaderboardRow) -> str:
    """The sort key of the horizon column: minutes, bounds at their edge, else empty."""
    horizon = row.horizon
    if horizon is None:
        return ""
    if horizon.minutes is not None:
        return str(horizon.minutes)
    return "" if horizon.bound is None else str(horizon.bound[0])


def leaderboard_table(board: Leaderboard) -> str:
    rows = [*board.rows, *board.apart]
    ks = sorted({k for r in rows for k in r.pass_at_k})
    headers = [
        ("#", ""),
        ("agent", "l"),
        ("model", "l"),
        ("tasks", ""),
        ("mean reward", ""),
        ("solved (R>=0.95)", ""),
        ("strict (R=1.0)", ""),
        *((f"pass@{k}", "") for k in ks),
        ("cost/task", ""),
        ("tokens/task", ""),
        ("min/task", ""),
        ("public-hidden gap", ""),
        ("50% horizon min (95% CI)", ""),
        *((f"R@{p}%", "") for p in _PERCENTS),
        ("AUC", ""),
        ("errors", ""),
        ("comparable", "l"),
    ]
    head = "".join(f'<th class="{c}">{escape(h)}</th>' for h, c in headers)
    body = []
    for rank, row in enumerate(rows, 1):
        comparable = row.comparable
        cells = [
            (str(rank) if comparable else "-", str(rank), ""),
            (row.agent, row.agent, "l"),
            (row.model or "-", row.model or "", "l"),
            (str(row.tasks), str(row.tasks), ""),
            (num(row.mean_reward), f"{row.mean_reward}", ""),
            (fmt.fmt_count(row.solved_rate, row.tasks), f"{row.solved_rate}", ""),
            (fmt.fmt_count(row.strict_rate, row.tasks), f"{row.strict_rate}", ""),
            *((num(row.pass_at_k.get(k)), str(row.pass_at_k.get(k, "")), "") for k in ks),
            (fmt.fmt_cost(row.mean_cost_usd), str(row.mean_cost_usd or ""), ""),
            (f"{row.mean_tokens:,.0f}", str(row.mean_tokens), ""),
            (f"{row.mean_time_sec / 60:.1f}", str(row.mean_time_sec), ""),
            (num(row.public_hidden_gap), str(row.public_hidden_gap or ""), ""),
            (fmt.fmt_horizon(row), _horizon_value(row), ""),
            *(
                (num(row.reward_at_percent.get(p)), str(row.reward_at_percent.get(p, "")), "")
                for p in _PERCENTS
            ),
            (num(row.mean_auc), str(row.mean_auc or ""), ""),
            (str(row.errors), str(row.errors), ""),
            ("yes" if comparable else "no: " + "; ".join(row.not_comparable), "", "l"),
        ]
        tds = "".join(f'<td class="{c}" data-v="{escape(v)}">{escape(t)}</td>' for t, v, c in cells)
        body.append(f'<tr class="{"" if comparable else "apart"}">{tds}</tr>')
    return (
        f'<div class="table-wrap"><table class="sortable" id="leaderboard"><thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def groups_table(rows: Sequence[LeaderboardRow], kind: Literal["category", "tier"]) -> str:
    """Each row's figures by task category or by task tier."""
    lines = [
        f'<tr><td class="l">{escape(row_key(r.agent, r.model, r.not_comparable))}</td>'
        f'<td class="l">{escape(c.name)}</td><td>{c.tasks}</td>'
        f"<td>{c.mean_reward:.3f}</td><td>{escape(fmt.fmt_count(c.solved_rate, c.tasks))}</td></tr>"
        for r in rows
        for c in (r.categories if kind == "category" else r.tiers)
    ]
    table_id = "categories" if kind == "category" else "tiers"
    return (
        f'<table class="sortable" id="{table_id}"><thead><tr><th class="l">agent</th>'
        f'<th class="l">{kind}</th><th>tasks</th><th>mean reward</th><th>solved</th></tr>'
        f"</thead><tbody>{''.join(lines)}</tbody></table>"
    )


def task_set_warning(rows: Sequence[LeaderboardRow], episodes: Sequence[Episode]) -> str:
    """A warning naming the rows that ran a different set of tasks ("" when all match).

    A row's mean reward is over its own tasks: rows over different tasks do not
    compare, however the table sorts them.
    """
    by_row: dict[str, set[str]] = defaultdict(set)
    for episode in episodes:
        by_row[episode_key(episode)].add(episode.config.task_name)
    keys = [row_key(r.agent, r.model, r.not_comparable) for r in rows]
    sets = [frozenset(by_row.get(k, ())) for k in keys]
    if len(set(sets)) <= 1:
        return ""
    every = frozenset().union(*sets)
    items = []
    for key, tasks in zip(keys, sets, strict=True):
        missing = sorted(every - tasks)
        text = f"{len(tasks)} of {len(every)} tasks"
        if missing:
            shown = ", ".join(missing[:_MISSING_NAMES])
            more = len(missing) - _MISSING_NAMES
            text += f" (missing {shown}{f' and {more} more' if more > 0 else ''})"
        items.append(f"<li><b>{escape(key)}</b>: {escape(text)}</li>")
    return (
        '<div class="warning" id="task-set-warning" role="alert"><b>Rows cover different '
        f"task sets</b> ({len(set(sets))} different sets over {len(every)} tasks): a row's mean "
        "reward is over its own tasks, so these rows do not compare directly."
        f"<ul>{''.join(items)}</ul></div>"
    )
