"""Reports: one self-contained HTML file for one or more benchmark runs (``lhtb report``).

Owns how runs look to a reader: the leaderboard and category tables, the
reward-vs-cost scatter and heatmap, stamina curves, the time-horizon chart, and
one section per episode (facts, timeline, gradings, subtask matrix, trajectory),
all inline SVG in one HTML template; plus the red-team results table of
``docs/security.md`` (``python -m lhtb.report._security_table``).

- ``_html``: :func:`render_report`, :func:`write_report`, ``template.html``.
- ``_tables``, ``_charts``, ``_curves``, ``_horizon_chart``: the run-level parts.
- ``_episode``, ``_timeline``, ``_points``, ``_matrix``, ``_trajectory``: an episode's section.
- ``_svg``: text widths, labels and axes for the inline SVG.
- ``_security_table``: the Markdown table of the security suite's results.

May import: :mod:`lhtb.analysis`, :mod:`lhtb.episode`, :mod:`lhtb.verify`,
:mod:`lhtb.task`, :mod:`lhtb.errors`, :mod:`lhtb._util`; not the benchmark runner.
"""

from lhtb.report._html import render_report, write_report

__all__ = ["render_report", "write_report"]
