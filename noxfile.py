"""Developer sessions: `nox -s tests`, `nox -s lint`, `nox -s types`, `nox -s docs`."""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.sessions = ["lint", "types", "tests", "docs"]
# uv makes and fills a session's venv in seconds (pip: over a minute for the dev extras);
# without uv (`pip install nox` alone) the standard venv and pip do the same, slower
nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_existing_virtualenvs = True

SOURCES = [p for p in ("src", "tests", "noxfile.py", "benchmarks", "examples") if Path(p).exists()]


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (Docker tests need a daemon; under CI=true they must run).

    Three workers, each taking whole files (module fixtures stay in one process); most
    tests wait on containers and processes, so a third worker still pays off on two
    cores (on the project's machine: 692 s against 829 s with two).
    ``nox -s tests -- -n 0 tests/test_x.py`` runs serially.
    """
    session.install("-e", ".[dev]")
    session.run("pytest", "-n", "3", "--dist", "loadfile", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    session.install("ruff")
    session.run("ruff", "check", *SOURCES)
    session.run("ruff", "format", "--check", *SOURCES)


@nox.session
def types(session: nox.Session) -> None:
    """mypy --strict on src/ (lhtb with the optional packages its modules import)."""
    session.install("-e", ".[testing,mcp]", "mypy>=1.10", "types-docker")
    session.run("mypy")


@nox.session
def docs(session: nox.Session) -> None:
    """Build docs/ with mkdocs; warnings fail the build."""
    session.install("mkdocs")
    session.run("mkdocs", "build", "--strict", "--site-dir", "build/site")
