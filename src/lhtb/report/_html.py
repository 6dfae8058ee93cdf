"""``lhtb report``: one self-contained HTML file for one or more benchmark runs.

The page has the leaderboard (with a warning when rows ran different task
sets), a reward-vs-cost scatter (inline SVG, unknown costs in their own lane),
a task x agent heatmap, each agent's mean reward over the budget, the
time-horizon fits with the tasks as points, and one section per episode: a
timeline of turns, verifier passes and hidden checkpoints under the reward
curve, a subtask x grading matrix, the feedback (repeats collapsed), the final
and best scorecards, and the agent's ``trajectory.json`` when the episode
directory has one. CSS and JavaScript are inline; the page loads nothing from
the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from html import escape
from importlib import resources
from pathlib import Path

from lhtb.analysis._leaderboard import Leaderboard, final_records
from lhtb.episode._record import Episode
from lhtb.errors import LhtbError
from lhtb.report._charts import episode_key, heatmap, row_key, scatter
from lhtb.report._curves import agent_curves
from lhtb.report._episode import episode_section
from lhtb.report._horizon_chart import horizon_chart, horizon_note
from lhtb.report._tables import groups_table, leaderboard_table, task_set_warning

__all__ = ["render_report", "write_report"]

TRAJECTORY_CHARS = 200_000
"""Default markup budget of one episode's trajectory; later steps are summarised."""


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
    episodes = [e for _, e in pairs]
    body = [
        "<h2>Leaderboard</h2>",
        '<p class="note">Mean reward over tasks (errors count 0); solved at R &gt;= 0.95, '
        "strict at R = 1.0. R@p%: mean reward of the state reached after p% of the budget, "
        "from the reward curves (verifier passes and hidden checkpoints); AUC: the area under "
        "the reward curve over the budget, normalised to 1. Rows in italics ran with "
        "diagnostic feedback or a changed budget and are not comparable.</p>",
        task_set_warning(rows, episodes),
        leaderboard_table(board),
        '<div class="charts"><div><h3>Reward vs cost</h3>',
        scatter(rows, episodes),
        "</div><div><h3>Task x agent (mean final reward)</h3>",
        heatmap(episodes, columns, anchors),
        "</div></div>",
        "<h2>Reward over the budget</h2>",
        '<p class="note">Each agent\'s mean reward at every percent of the budget, from the '
        "reward curves of its episodes (verifier passes and hidden checkpoints); at 100% it "
        "is the reward at the deadline.</p>",
        agent_curves(rows, episodes),
        "<h2>Time horizon</h2>",
        horizon_note(board),
        horizon_chart(board),
        "<h2>By category</h2>",
        groups_table(rows, "category"),
        *(["<h2>By tier</h2>", groups_table(rows, "tier")] if any(r.tiers for r in rows) else []),
        f"<h2>Episodes ({len(pairs)})</h2>",
        '<div class="toolbar"><input id="filter" type="search" placeholder="filter: task, agent, '
        'outcome"><button id="expand" type="button">expand all</button>'
        '<span id="shown" class="note"></span></div>',
        *(episode_section(anchors[id(e)], d, e, trajectory_chars) for d, e in ordered),
    ]
    heading = title or "lhtb benchmark report"
    subtitle = (
        f"{', '.join(str(Path(d)) for d in run_dirs)} · {len(board.tasks)} tasks · "
        f"{len(pairs)} episodes · generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    template = resources.files("lhtb.report").joinpath("template.html").read_text("utf-8")
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
