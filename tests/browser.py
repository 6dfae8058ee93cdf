"""Headless Chromium for the report tests: the DOM after the scripts ran, label checks, screenshots.

Without Chromium the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import IN_CI

LABEL_CHECK = """<script>
(function () {
  "use strict";
  /* Test only: open every episode, then measure every SVG text as laid out. */
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var problems = [], checked = 0;
  function apart(a, b) {
    return a.right <= b.left + 0.5 || b.right <= a.left + 0.5 ||
           a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
  }
  document.querySelectorAll("svg").forEach(function (svg) {
    var box = svg.getBoundingClientRect(), seen = [];
    svg.querySelectorAll("text").forEach(function (text) {
      var r = text.getBoundingClientRect();
      if (r.width === 0) { return; }
      checked += 1;
      var name = svg.id + ": " + text.textContent;
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 ||
          r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        problems.push("outside the viewBox: " + name);
      }
      seen.forEach(function (other) {
        if (!apart(r, other.r)) { problems.push("overlap: " + name + " / " + other.name); }
      });
      seen.push({r: r, name: name});
    });
  });
  document.body.setAttribute("data-labels-checked", String(checked));
  document.body.setAttribute("data-label-problems", JSON.stringify(problems));
})();
</script>"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    message = "headless Chromium is not installed (apt-get install chromium)"
    if IN_CI:
        pytest.fail(f"{message}, and CI=true: the report test must run in CI")
    pytest.skip(message)


def _run(profile: Path, *args: str) -> str:
    result = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def rendered_dom(page: Path, profile: Path) -> str:
    """The DOM after the page's scripts ran, as Chromium serialises it."""
    return _run(profile, "--dump-dom", page.as_uri())


def label_problems(page: Path, profile: Path) -> tuple[int, list[str]]:
    """How many SVG texts Chromium laid out, and which fall outside their SVG or overlap.

    A copy of the page gets a test-only script that opens every episode and
    measures each ``<text>``'s box against its ``<svg>`` and its siblings.
    """
    probe = page.with_name(f"{page.stem}-labels.html")
    probe.write_text(
        page.read_text(encoding="utf-8").replace("</body>", f"{LABEL_CHECK}</body>"),
        encoding="utf-8",
    )
    dom = rendered_dom(probe, profile)
    checked = re.search(r'data-labels-checked="(\d+)"', dom)
    problems = re.search(r'data-label-problems="([^"]*)"', dom)
    assert checked is not None, "the label check did not run"
    assert problems is not None, "the label check did not run"
    return int(checked[1]), json.loads(html.unescape(problems[1]))


def screenshot(url: str, output: Path, profile: Path, *, width: int, height: int) -> None:
    """A PNG of the page at ``url`` in a ``width`` x ``height`` window."""
    _run(profile, f"--window-size={width},{height}", f"--screenshot={output}", url)
    assert png_size(output) == (width, height)


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height
