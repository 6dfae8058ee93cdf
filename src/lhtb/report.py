"""``lhtb report``: one self-contained HTML file for one or more benchmark runs.

The page has the leaderboard, a reward-vs-cost scatter (inline SVG), a task x
agent heatmap, the time-horizon fits with the tasks as points, and one section
per episode: turns, verifier passes with their scorecards, and the agent's
``trajectory.json`` when the episode directory has one. CSS and JavaScript are
inline; the page loads nothing from the network.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from lhtb import _leaderboard_render as fmt
from lhtb._horizon_chart import horizon_chart, horizon_note
from lhtb._report_charts import episode_key, heatmap, row_key, scatter
from lhtb.episode import Episode, VerifierPass
from lhtb.errors import LhtbError
from lhtb.leaderboard import Leaderboard, LeaderboardRow, final_records

__all__ = ["render_report", "write_report"]

TRAJECTORY_CHARS = 200_000
"""Default markup budget of one episode's trajectory; later steps are summarised."""
MAX_TEXT = 4000
"""Characters shown of one message, tool call or observation."""


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n... ({len(text) - limit} more chars)"


def _pre(text: str) -> str:
    return f"<pre>{escape(_clip(text))}</pre>"


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _horizon_value(row: LeaderboardRow) -> str:
    """The sort key of the horizon column: minutes, bounds at their edge, else empty."""
    horizon = row.horizon
    if horizon is None:
        return ""
    if horizon.minutes is not None:
        return str(horizon.minutes)
    return "" if horizon.bound is None else str(horizon.bound[0])


def _leaderboard_table(board: Leaderboard) -> str:
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
            (_num(row.mean_reward), f"{row.mean_reward}", ""),
            (fmt.fmt_count(row.solved_rate, row.tasks), f"{row.solved_rate}", ""),
            (fmt.fmt_count(row.strict_rate, row.tasks), f"{row.strict_rate}", ""),
            *((_num(row.pass_at_k.get(k)), str(row.pass_at_k.get(k, "")), "") for k in ks),
            (fmt.fmt_cost(row.mean_cost_usd), str(row.mean_cost_usd or ""), ""),
            (f"{row.mean_tokens:,.0f}", str(row.mean_tokens), ""),
            (f"{row.mean_time_sec / 60:.1f}", str(row.mean_time_sec), ""),
            (_num(row.public_hidden_gap), str(row.public_hidden_gap or ""), ""),
            (fmt.fmt_horizon(row), _horizon_value(row), ""),
            (str(row.errors), str(row.errors), ""),
            ("yes" if comparable else "no: " + "; ".join(row.not_comparable), "", "l"),
        ]
        tds = "".join(f'<td class="{c}" data-v="{escape(v)}">{escape(t)}</td>' for t, v, c in cells)
        body.append(f'<tr class="{"" if comparable else "apart"}">{tds}</tr>')
    return (
        f'<table class="sortable" id="leaderboard"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _categories(rows: Sequence[LeaderboardRow]) -> str:
    lines = [
        f'<tr><td class="l">{escape(row_key(r.agent, r.model, r.not_comparable))}</td>'
        f'<td class="l">{escape(c.category)}</td><td>{c.tasks}</td>'
        f"<td>{c.mean_reward:.3f}</td><td>{escape(fmt.fmt_count(c.solved_rate, c.tasks))}</td></tr>"
        for r in rows
        for c in r.categories
    ]
    return (
        '<table class="sortable" id="categories"><thead><tr><th class="l">agent</th>'
        '<th class="l">category</th><th>tasks</th><th>mean reward</th><th>solved</th></tr>'
        f"</thead><tbody>{''.join(lines)}</tbody></table>"
    )


def _pass_section(verifier_pass: VerifierPass) -> str:
    card = verifier_pass.scorecard
    title = (
        f"pass {verifier_pass.number}{' (final)' if verifier_pass.final else ''}: "
        f"{verifier_pass.outcome}, reward {_num(verifier_pass.reward)}, "
        f"{verifier_pass.duration_sec:.1f}s"
    )
    parts = [f"<h4>{escape(title)}</h4>"]
    if verifier_pass.error:
        parts.append(_pre(verifier_pass.error))
    if card is not None and card.subtasks:
        rows = "".join(
            f'<tr><td class="l">{escape(s.name)}</td><td class="l">{s.visibility}</td>'
            f"<td>{s.weight:g}</td><td>{s.score:.3f}</td>"
            f'<td class="l">{escape(s.message or "")}</td></tr>'
            for s in card.subtasks
        )
        parts.append(
            '<table class="scorecard"><thead><tr><th class="l">subtask</th>'
            '<th class="l">visibility</th><th>weight</th><th>score</th><th class="l">message</th>'
            f"</tr></thead><tbody>{rows}</tbody></table>"
        )
    elif card is not None:
        parts.append(f'<p class="note">reward from {escape(card.source)}</p>')
    return "".join(parts)


def _message_text(message: Any) -> str:
    if isinstance(message, str):
        return message
    if isinstance(message, list):
        return "\n".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in message
        )
    return json.dumps(message, indent=1)


def _step_html(step: dict[str, Any]) -> str:
    source = str(step.get("source", "?"))
    meta = " · ".join(
        str(v) for v in (step.get("step_id"), source, step.get("timestamp")) if v is not None
    )
    parts = [f'<div class="step {escape(source)}"><div class="meta">{escape(meta)}</div>']
    text = _message_text(step.get("message", ""))
    if text:
        parts.append(_pre(text))
    for call in step.get("tool_calls") or []:
        if isinstance(call, dict):
            args = json.dumps(call.get("arguments", {}), indent=1)
            parts.append(_pre(f"-> {call.get('function_name', '?')} {args}"))
    observation = step.get("observation") or {}
    for result in observation.get("results", []) if isinstance(observation, dict) else []:
        if isinstance(result, dict) and result.get("content") is not None:
            parts.append(_pre(_message_text(result["content"])))
    parts.append("</div>")
    return "".join(parts)


def _trajectory(directory: Path, budget_chars: int) -> str:
    """The agent's ``trajectory.json``: steps until ``budget_chars`` of markup are used."""
    path = directory / "trajectory.json"
    if not path.is_file():
        return ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return (
            f'<h4>trajectory</h4><p class="note">unreadable trajectory.json: {escape(str(exc))}</p>'
        )
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(steps, list):
        return f"<h4>trajectory</h4>{_pre(json.dumps(data, indent=1))}"
    parts = [f'<h4>trajectory ({len(steps)} steps)</h4><div class="trajectory">']
    used = shown = 0
    for step in steps:
        if used >= budget_chars:
            break
        if isinstance(step, dict):
            html = _step_html(step)
            parts.append(html)
            used += len(html)
        shown += 1
    if shown < len(steps):
        parts.append(
            f'<p class="note">{len(steps) - shown} more steps in {escape(str(path))} '
            "(the report shows the first ones only)</p>"
        )
    parts.append("</div>")
    return "".join(parts)


def _episode_section(
    anchor: str, directory: Path | None, episode: Episode, trajectory_chars: int
) -> str:
    config = episode.config
    reward = _num(episode.reward)
    search = " ".join([config.task_name, episode_key(episode), str(episode.outcome)]).lower()
    summary = (
        f"{escape(config.task_name)} · {escape(episode_key(episode))} · attempt {episode.attempt}"
        f' · <span class="outcome o-{episode.outcome}">{episode.outcome}</span> · reward {reward}'
    )
    facts = [
        ("episode", episode.id),
        ("directory", str(directory) if directory else "-"),
        ("budget", f"{config.budget_sec:g}s" if config.budget_sec else "-"),
        ("feedback", str(config.feedback)),
        ("isolation", str(config.isolation)),
        ("best interim reward", _num(episode.best_reward)),
        ("minutes", f"{episode.timings.total_sec / 60:.1f}"),
        ("tokens", f"{episode.usage.total_tokens:,}"),
        ("cost", fmt.fmt_cost(episode.usage.cost_usd)),
    ]
    body = [
        '<table class="facts"><tbody>',
        *(f'<tr><th class="l">{k}</th><td class="l">{escape(v)}</td></tr>' for k, v in facts),
        "</tbody></table>",
    ]
    if episode.error:
        body.append(f"<h4>error</h4>{_pre(episode.error)}")
    if episode.turns:
        rows = "".join(
            f"<tr><td>{t.number}</td><td>{t.duration_sec:.1f}</td><td class='l'>{t.end}</td>"
            f"<td>{t.usage.total_tokens:,}</td>"
            f"<td class='l'>{escape(t.feedback or '')}</td>"
            f"<td class='l'>{escape(t.error or '')}</td></tr>"
            for t in episode.turns
        )
        body.append(
            "<h4>turns</h4><table class='turns'><thead><tr><th>turn</th><th>seconds</th>"
            "<th class='l'>end</th><th>tokens</th><th class='l'>feedback</th>"
            f"<th class='l'>error</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    body.extend(_pass_section(p) for p in episode.passes)
    if directory is not None:
        body.append(_trajectory(directory, trajectory_chars))
    return (
        f'<section class="episode" id="{anchor}" data-search="{escape(search)}">'
        f'<details><summary>{summary}</summary><div class="body">{"".join(body)}</div>'
        "</details></section>"
    )


def render_report(
    *run_dirs: str | Path,
    title: str | None = None,
    trajectory_chars: int = TRAJECTORY_CHARS,
    baseline: Mapping[str, float] | None = None,
) -> str:
    """The HTML report of the runs in ``run_dirs`` as one string.

    Each episode's trajectory is shown up to ``trajectory_chars`` characters of
    markup (0 leaves trajectories out but for their step count), which keeps the
    report of a large sweep openable. ``baseline`` maps tasks to measured human
    minutes for the time horizons (other tasks use their expert estimate).

    Raises:
        LhtbError: a directory is missing or holds no episode records.
    """
    pairs: list[tuple[Path | None, Episode]] = []
    for run_dir in map(Path, run_dirs):
        found = final_records(run_dir) if run_dir.is_dir() else []
        if not found:
            raise LhtbError(
                "no episode records (episode.json) found",
                where=str(run_dir),
                fix="give the output directory of `lhtb run` or run_benchmark",
            )
        pairs.extend(found)
    board = Leaderboard.from_episodes((e for _, e in pairs), baseline=baseline)
    anchors = {id(episode): f"ep-{i}" for i, (_, episode) in enumerate(pairs, 1)}
    rows = [*board.rows, *board.apart]
    columns = [row_key(r.agent, r.model, r.not_comparable) for r in rows]
    ordered = sorted(pairs, key=lambda p: (p[1].config.task_name, episode_key(p[1]), p[1].attempt))
    body = [
        "<h2>Leaderboard</h2>",
        '<p class="note">Mean reward over tasks (errors count 0); solved at R &gt;= 0.95, '
        "strict at R = 1.0. Rows in italics ran with diagnostic feedback or a changed budget "
        "and are not comparable.</p>",
        _leaderboard_table(board),
        '<div class="charts"><div><h3>Reward vs cost</h3>',
        scatter(rows),
        "</div><div><h3>Task x agent (mean final reward)</h3>",
        heatmap([e for _, e in pairs], columns, anchors),
        "</div></div>",
        "<h2>Time horizon</h2>",
        horizon_note(board),
        horizon_chart(board),
        "<h2>By category</h2>",
        _categories(rows),
        f"<h2>Episodes ({len(pairs)})</h2>",
        '<div class="toolbar"><input id="filter" type="search" placeholder="filter: task, agent, '
        'outcome"><button id="expand" type="button">expand all</button>'
        '<span id="shown" class="note"></span></div>',
        *(_episode_section(anchors[id(e)], d, e, trajectory_chars) for d, e in ordered),
    ]
    heading = title or "lhtb benchmark report"
    subtitle = (
        f"{', '.join(str(Path(d)) for d in run_dirs)} · {len(board.tasks)} tasks · "
        f"{len(pairs)} episodes · generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    template = resources.files("lhtb").joinpath("report_template.html").read_text("utf-8")
    return (
        template.replace("<!--LHTB:TITLE-->", escape(heading))
        .replace("<!--LHTB:SUBTITLE-->", escape(subtitle))
        .replace("<!--LHTB:BODY-->", "\n".join(body))
    )


def write_report(
    *run_dirs: str | Path,
    output: str | Path,
    title: str | None = None,
    trajectory_chars: int = TRAJECTORY_CHARS,
    baseline: Mapping[str, float] | None = None,
) -> Path:
    """Write the HTML report of ``run_dirs`` to ``output`` and return its path."""
    path = Path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    html = render_report(
        *run_dirs, title=title, trajectory_chars=trajectory_chars, baseline=baseline
    )
    path.write_text(html, encoding="utf-8")
    return path
