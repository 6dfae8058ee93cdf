"""Start-up: ``import lhtb`` loads no heavy dependency, and every public name still resolves."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import lhtb

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("openai", "ray", "rich", "docker", "structlog")


def loaded_after(code: str) -> list[str]:
    """The heavy modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, check=True, capture_output=True, text=True
    )
    modules = set(json.loads(out.stdout.splitlines()[-1]))
    return [name for name in HEAVY if name in modules]


def test_import_lhtb_loads_no_heavy_dependency() -> None:
    assert loaded_after("import lhtb") == []
    # the probe sees them when they are loaded: the check itself works
    assert loaded_after("import lhtb, rich, structlog") == ["rich", "structlog"]


def test_every_public_name_resolves() -> None:
    for name in lhtb.__all__:
        assert getattr(lhtb, name) is not None, name
    assert lhtb.agents.OracleAgent.__name__ == "OracleAgent"
    assert set(dir(lhtb)) >= set(lhtb.__all__)


def test_python_api_page_names_every_public_name() -> None:
    import lhtb.agents
    import lhtb.errors

    page = (Path(__file__).resolve().parents[1] / "docs" / "python-api.md").read_text()
    names = [*lhtb.__all__, *lhtb.agents.__all__, *lhtb.errors.__all__]
    fences = re.compile(r"```.*?```", re.DOTALL)
    code = fences.findall(page) + re.findall(r"`[^`\n]+`", fences.sub("", page))
    in_code = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(code)))
    assert [n for n in names if not n.startswith("__") and n not in in_code] == []
