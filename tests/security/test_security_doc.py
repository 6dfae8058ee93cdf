"""docs/security.md embeds the table rendered from the suite's latest results, and the
results cover exactly the suite's techniques: the page cannot silently drift."""

from __future__ import annotations

import json
from pathlib import Path

from lhtb.report._security_table import (
    MODES,
    TECHNIQUES_BEGIN,
    TECHNIQUES_END,
    extract,
    load_rows,
    render,
    render_techniques,
)

from ._attack import OUTCOMES, TECHNIQUES

DOCS = Path(__file__).resolve().parents[2] / "docs"
RESULTS = DOCS / "security-results.json"
PAGE = DOCS / "security.md"


def test_the_page_embeds_the_rendered_results() -> None:
    page = PAGE.read_text()
    assert extract(page) == render(load_rows(RESULTS))
    techniques = json.loads(RESULTS.read_text())["techniques"]
    assert extract(page, TECHNIQUES_BEGIN, TECHNIQUES_END) == render_techniques(techniques)


def test_the_results_cover_every_technique_mode_and_backend() -> None:
    rows = load_rows(RESULTS)
    assert json.loads(RESULTS.read_text())["techniques"] == TECHNIQUES
    assert {r["technique"] for r in rows} == set(TECHNIQUES)
    assert {r["outcome"] for r in rows} <= set(OUTCOMES)
    assert "leaked" not in {r["outcome"] for r in rows}
    for technique in TECHNIQUES:
        for mode in MODES:
            assert any(
                r["technique"] == technique and r["isolation"] == mode and r["backend"] == "docker"
                for r in rows
            ), f"{technique} / {mode} has no Docker result"


def test_every_forged_outcome_is_a_documented_limit() -> None:
    """Only snapshot and shared may be forged, and only by tools or links into /tests."""
    for row in load_rows(RESULTS):
        if row["outcome"] == "forged":
            assert row["isolation"] in {"snapshot", "shared"}, row
            assert row["technique"].startswith(
                ("tamper-", "artifact-link-to-verifier", "artifact-dotdot")
            ), row
