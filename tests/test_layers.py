"""The layers of src/lhtb: every import runs from a higher layer to a lower one.

Each module of lhtb belongs to one *unit*: the longest entry of :data:`LAYERS` that
is the module or one of its packages. An import (at module level, under
``TYPE_CHECKING`` or inside a function: all of them count) may name a module of its
own unit or of a unit in a lower layer; never one in a higher layer, and never a
sibling in the same layer (siblings stay independent). docs/architecture.md
explains the table; a test keeps its layer list equal to this one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"

LAYERS: tuple[tuple[str, ...], ...] = (
    # lowest first
    ("lhtb.errors", "lhtb._util"),
    ("lhtb.task", "lhtb.images"),
    ("lhtb.sandbox",),  # the core: base, archive and the helpers both backends share
    ("lhtb.sandbox.host", "lhtb.sandbox.terminal"),
    ("lhtb.sandbox.docker", "lhtb.sandbox.local", "lhtb.testing"),
    ("lhtb.sandbox.registry",),
    ("lhtb.sandbox.conformance", "lhtb.sandbox._task_sandbox"),
    ("lhtb.verify", "lhtb.agents"),
    ("lhtb.episode",),
    ("lhtb.session", "lhtb.analysis"),
    ("lhtb.bench",),
    ("lhtb.gates", "lhtb.report"),
    ("lhtb.cli",),
    ("lhtb",),  # the public face: __init__ only
)
"""The units of each layer, from the bottom up."""

LAYER_OF = {unit: index for index, units in enumerate(LAYERS) for unit in units}


def module_files(src: Path = SRC) -> dict[str, Path]:
    """Every module of lhtb under ``src`` by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted((src / "lhtb").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported_modules(
    tree: ast.AST, module: str, is_package: bool, known: set[str]
) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every lhtb module the code imports, wherever the import is.

    ``from package import name`` counts as importing ``package.name`` when that is a
    module, else ``package`` itself.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "lhtb" or alias.name.startswith("lhtb."):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target != "lhtb" and not target.startswith("lhtb."):
                continue
            for alias in node.names:
                child = f"{target}.{alias.name}"
                yield node.lineno, child if child in known else target


def unit_of(module: str) -> str:
    """The longest entry of :data:`LAYERS` that is ``module`` or a package of it."""
    candidates = [u for u in LAYER_OF if module == u or module.startswith(u + ".")]
    return max(candidates, key=len)


def problems(src: Path = SRC) -> list[str]:
    """Every import that runs up or sideways, and every module no unit owns."""
    files = module_files(src)
    known = set(files)
    found: list[str] = []
    for module, path in files.items():
        importer = unit_of(module)
        if importer == "lhtb" and module != "lhtb":
            found.append(f"{module}: in no layer (add its unit to LAYERS)")
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, target in imported_modules(tree, module, path.name == "__init__.py", known):
            imported = unit_of(target)
            if imported == importer:
                continue
            if LAYER_OF[imported] < LAYER_OF[importer]:
                continue
            how = "a sibling in its layer" if LAYER_OF[imported] == LAYER_OF[importer] else "up"
            found.append(f"{path.relative_to(src)}:{line}: {importer} imports {target} ({how})")
    return found


def package_cycles(src: Path = SRC) -> list[list[str]]:
    """Import circles among lhtb's top-level sub-packages (``lhtb.task``, ``lhtb.sandbox`` ...)."""
    files = module_files(src)
    known = set(files)
    edges: dict[str, set[str]] = {}

    def top(name: str) -> str:
        return ".".join(name.split(".")[:2])

    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for _, target in imported_modules(tree, module, path.name == "__init__.py", known):
            if top(target) != top(module) and top(module) != "lhtb" and top(target) != "lhtb":
                edges.setdefault(top(module), set()).add(top(target))
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return cycles


def test_every_import_runs_down_the_layers() -> None:
    assert problems() == []


def test_no_import_circle_among_sub_packages() -> None:
    assert package_cycles() == []


def test_every_sub_package_says_what_it_owns() -> None:
    for module, path in module_files().items():
        if path.name == "__init__.py":
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
            assert doc, f"{module} has no docstring"


def test_the_architecture_page_lists_the_same_layers() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = re.search(r"<!-- layers:begin -->(.*?)<!-- layers:end -->", text, re.DOTALL)
    assert block is not None, "docs/architecture.md lost its layer table markers"
    rows = [re.findall(r"`(lhtb[\w.]*)`", line) for line in block.group(1).splitlines()]
    assert tuple(tuple(row) for row in rows if row) == tuple(reversed(LAYERS))


# -- the checker itself -------------------------------------------------------------------


def _tree(tmp_path: Path, modules: dict[str, str]) -> Path:
    for name, code in modules.items():
        parts = name.split(".")
        path = tmp_path.joinpath(*parts[:-1], f"{parts[-1]}.py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    return tmp_path


@pytest.mark.parametrize(
    "code",
    [
        "from lhtb.episode._record import Episode\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from lhtb.episode import X\n",
        "def f():\n    from lhtb import episode\n",
        "import lhtb.episode._runner\n",
    ],
)
def test_an_import_up_is_found_wherever_it_is(tmp_path: Path, code: str) -> None:
    src = _tree(
        tmp_path,
        {
            "lhtb.__init__": "",
            "lhtb.episode.__init__": "",
            "lhtb.episode._record": "",
            "lhtb.episode._runner": "",
            "lhtb.task.__init__": "",
            "lhtb.task._model": code,
        },
    )
    found = problems(src)
    assert len(found) == 1
    assert found[0].startswith("lhtb/task/_model.py:")
    assert "lhtb.task imports lhtb.episode" in found[0]
    assert found[0].endswith("(up)")


def test_siblings_a_missing_unit_and_a_circle_are_found(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "lhtb.__init__": "",
            "lhtb.verify.__init__": "from lhtb.agents import Turn\n",
            "lhtb.agents.__init__": "from lhtb.verify import Verifier\n",
            "lhtb.stray": "",
        },
    )
    found = problems(src)
    assert "lhtb.stray: in no layer (add its unit to LAYERS)" in found
    assert any("lhtb.verify imports lhtb.agents (a sibling in its layer)" in p for p in found)
    assert package_cycles(src) == [["lhtb.agents", "lhtb.verify", "lhtb.agents"]]
