"""One episode's section of the report: facts, timeline, gradings, feedback, trajectory.

A long episode stays readable: the timeline and the subtask matrix carry the
passes and checkpoints, repeated feedback is one line with a count, and only
the final (and, if better, the best) pass's scorecard is shown in full.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from pathlib import Path

from lhtb.analysis import _leaderboard_render as fmt
from lhtb.analysis._stamina import has_curve, normalised_auc, time_to_threshold_sec
from lhtb.episode._record import Episode
from lhtb.report._charts import episode_key
from lhtb.report._matrix import subtask_matrix
from lhtb.report._points import graded_points
from lhtb.report._svg import minutes_label
from lhtb.report._tables import num
from lhtb.report._timeline import timeline
from lhtb.report._trajectory import pre, trajectory
from lhtb.verify._pass import VerifierPass

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_OPEN_ROWS = 8
"""Tables longer than this start folded."""


def collapse_repeats(items: Sequence[tuple[int, str]]) -> list[tuple[list[int], str]]:
    """Consecutive texts that differ at most in their numbers, merged into one each.

    ``items`` are ``(turn number, text)``; a merged text shows a number that
    changed as ``first…last``.
    """
    groups: list[tuple[list[int], list[str]]] = []
    for number, text in items:
        if groups and _NUMBER.sub("#", groups[-1][1][0]) == _NUMBER.sub("#", text):
            groups[-1][0].append(number)
            groups[-1][1].append(text)
        else:
            groups.append(([number], [text]))
    return [(numbers, _merge(texts)) for numbers, texts in groups]


def _merge(texts: Sequence[str]) -> str:
    pieces = _NUMBER.split(texts[0])
    slots = [_NUMBER.findall(text) for text in texts]
    out = [pieces[0]]
    for i, piece in enumerate(pieces[1:]):
        values = [slot[i] for slot in slots]
        out.append(values[0] if len(set(values)) == 1 else f"{values[0]}\u2026{values[-1]}")
        out.append(piece)
    return "".join(out)


def _span(numbers: Sequence[int]) -> str:
    if len(numbers) == 1:
        return f"turn {numbers[0]}"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"turns {numbers[0]}\u2013{numbers[-1]}"
    return "turns " + ", ".join(map(str, numbers))


def _feedback(episode: Episode) -> str:
    given = [(t.number, t.feedback) for t in episode.turns if t.feedback]
    if not given:
        return ""
    lines = "".join(
        f'<li><span class="count">\u00d7{len(numbers)}</span> '
        f'<span class="turns">{_span(numbers)}</span>{pre(text)}</li>'
        for numbers, text in collapse_repeats(given)
    )
    return f'<h4>feedback to the agent ({len(given)} times)</h4><ul class="feedback">{lines}</ul>'


def _folded(title: str, rows: int, table: str) -> str:
    """``table`` under an ``<h4>``, or inside a closed ``<details>`` when it is long."""
    if rows <= _OPEN_ROWS:
        return f"<h4>{escape(title)}</h4>{table}"
    return f'<details class="fold"><summary>{escape(title)}</summary>{table}</details>'


def _turns(episode: Episode) -> str:
    rows = "".join(
        f"<tr><td>{t.number}</td><td>{t.duration_sec:.1f}</td><td class='l'>{t.end}</td>"
        f"<td>{t.usage.total_tokens:,}</td><td class='l'>{escape(t.error or '')}</td></tr>"
        for t in episode.turns
    )
    table = (
        "<table class='turns'><thead><tr><th>turn</th><th>seconds</th><th class='l'>end</th>"
        f"<th>tokens</th><th class='l'>error</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    return _folded(f"turns ({len(episode.turns)})", len(episode.turns), table)


def _gradings(episode: Episode) -> str:
    points = graded_points(episode)
    rows = "".join(
        f'<tr class="{g.kind}"><td class="l">{g.kind} {g.number}{" (final)" if g.final else ""}'
        f"</td><td>{minutes_label(g.elapsed_sec)}</td><td class='l'>{g.status}</td>"
        f"<td>{num(g.reward)}</td><td>{g.duration_sec:.1f}</td></tr>"
        for g in points
    )
    table = (
        "<table class='gradings'><thead><tr><th class='l'>grading</th><th>at</th>"
        "<th class='l'>outcome</th><th>reward</th><th>grading seconds</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    title = f"verifier passes ({len(episode.passes)})"
    if episode.checkpoints or episode.checkpoints_skipped:
        title += (
            f" and hidden checkpoints ({len(episode.checkpoints)} graded, "
            f"{episode.checkpoints_skipped} skipped while grading fell behind)"
        )
    return _folded(title, len(points), table) + subtask_matrix(points)


def _errors(passes: Sequence[VerifierPass]) -> str:
    shown = collapse_repeats([(p.number, p.error) for p in passes if p.error])
    return "".join(
        f"<p class='note'>pass error \u00d7{len(numbers)} (passes "
        f"{', '.join(map(str, numbers))}):</p>{pre(text)}"
        for numbers, text in shown
    )


def _scorecard(title: str, verifier_pass: VerifierPass) -> str:
    card = verifier_pass.scorecard
    parts = [f"<h4>{escape(title)}</h4>"]
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


def _pass_title(verifier_pass: VerifierPass, role: str) -> str:
    return (
        f"{role}: pass {verifier_pass.number}{' (final)' if verifier_pass.final else ''}: "
        f"{verifier_pass.outcome}, reward {num(verifier_pass.reward)}, "
        f"{verifier_pass.duration_sec:.1f}s"
    )


def _scorecards(episode: Episode) -> str:
    if not episode.passes:
        return ""
    last = episode.passes[-1]
    parts = [_scorecard(_pass_title(last, "scorecard"), last)]
    rewarded = [p for p in episode.passes if p.reward is not None]
    best = max(rewarded, key=lambda p: p.reward or 0.0, default=None)
    if best is not None and best is not last and (last.reward or 0.0) < (best.reward or 0.0):
        parts.append(_scorecard(_pass_title(best, "best scorecard"), best))
    return "".join(parts) + _errors(episode.passes)


def _stamina_facts(episode: Episode) -> list[tuple[str, str]]:
    """Checkpoint interval, time to R >= 0.95 and the AUC, for an episode with a timed curve."""
    interval = episode.config.checkpoint_interval_sec
    facts = [("checkpoints every", minutes_label(interval))] if interval else []
    if has_curve(episode):
        reached = time_to_threshold_sec(episode)
        facts += [
            ("time to R >= 0.95", "never" if reached is None else minutes_label(reached)),
            ("AUC (area under the reward curve / budget)", num(normalised_auc(episode))),
        ]
    return facts


def episode_section(
    anchor: str, directory: Path | None, episode: Episode, trajectory_chars: int
) -> str:
    """The collapsible ``<section>`` of one episode."""
    config = episode.config
    search = " ".join([config.task_name, episode_key(episode), str(episode.outcome)]).lower()
    summary = (
        f"{escape(config.task_name)} · {escape(episode_key(episode))} · attempt {episode.attempt}"
        f' · <span class="outcome o-{episode.outcome}">{episode.outcome}</span>'
        f" · reward {num(episode.reward)}"
    )
    facts = [
        ("episode", episode.id),
        ("directory", str(directory) if directory else "-"),
        ("budget", f"{config.budget_sec:g}s" if config.budget_sec else "-"),
        ("feedback", str(config.feedback)),
        ("isolation", str(config.isolation)),
        ("best interim reward", num(episode.best_reward)),
        *_stamina_facts(episode),
        ("minutes", f"{episode.timings.total_sec / 60:.1f}"),
        ("tokens", f"{episode.usage.total_tokens:,}"),
        ("cost", fmt.fmt_cost(episode.usage.cost_usd)),
    ]
    body = [
        '<table class="facts"><tbody>',
        *(
            f'<tr><th class="l">{escape(k)}</th><td class="l">{escape(v)}</td></tr>'
            for k, v in facts
        ),
        "</tbody></table>",
    ]
    if episode.error:
        body.append(f"<h4>error</h4>{pre(episode.error)}")
    body.append(timeline(anchor, episode))
    if episode.turns:
        body.append(_turns(episode))
    body.append(_feedback(episode))
    if episode.passes or episode.checkpoints:
        body.append(_gradings(episode))
    body.append(_scorecards(episode))
    if directory is not None:
        body.append(trajectory(directory, trajectory_chars))
    return (
        f'<section class="episode" id="{anchor}" data-search="{escape(search)}">'
        f'<details><summary>{summary}</summary><div class="body">{"".join(body)}</div>'
        "</details></section>"
    )
