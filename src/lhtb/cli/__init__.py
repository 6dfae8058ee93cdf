"""The ``lhtb`` command: one module per subcommand, wired here.

Subcommands are imported when they run (or show their own help), so ``lhtb
--help`` loads only click; :data:`COMMANDS` holds the line ``lhtb --help`` shows
for each (a test keeps it equal to the command's own docstring).

May import: every other sub-package (the top layer); nothing imports it except the
``lhtb`` script (``pyproject.toml``).
"""

from __future__ import annotations

import importlib
import logging
import sys

import click

COMMANDS: dict[str, tuple[str, str]] = {
    "baseline": (
        "lhtb.cli.results:baseline",
        "Measure per-task human time-to-solve from the `human:*` episodes in RUN_DIRS.",
    ),
    "check": (
        "lhtb.cli.results:check",
        "Gate every task: the oracle must pass it, the nop agent and weak solutions must not.",
    ),
    "cleanup": (
        "lhtb.cli.run:cleanup",
        "Remove the sandboxes and snapshots lhtb left behind: one run's (--run-id, "
        "--run-dir) or all (--all).",
    ),
    "exec": (
        "lhtb.cli.session:exec_",
        "Run COMMAND in the sandbox of the session at SESSION (its socket path).",
    ),
    "grade": (
        "lhtb.cli.grade:grade",
        "Grade the artifacts in --from with TASK's hidden tests and print the scorecard.",
    ),
    "images": ("lhtb.cli.images:images", "Manage the Docker base images tasks are built from."),
    "leaderboard": (
        "lhtb.cli.results:leaderboard",
        "The leaderboard of the runs in RUN_DIRS (errors count 0; solved at R >= 0.95).",
    ),
    "mcp": (
        "lhtb.cli.mcp:mcp",
        "Run one episode of TASK for an MCP client: the session's tools over stdio.",
    ),
    "play": (
        "lhtb.cli.play:play",
        "Work TASK yourself: a shell in its sandbox, timed and verified like an agent.",
    ),
    "report": (
        "lhtb.cli.results:report",
        "Write one self-contained HTML report of the runs in RUN_DIRS.",
    ),
    "run": (
        "lhtb.cli.run:run",
        "Run agents on the tasks in TASKS (attempts x tasks x agents) and print a leaderboard.",
    ),
    "serve": (
        "lhtb.cli.session:serve",
        "Run one episode of TASK for an agent outside lhtb, served on a Unix socket.",
    ),
    "submit": (
        "lhtb.cli.session:submit",
        "Stop and have the session's work verified; print the feedback.",
    ),
    "validate": (
        "lhtb.cli.validate:validate",
        "Load the tasks under PATHS and list them; exit 1 listing every problem found.",
    ),
    "verify": (
        "lhtb.cli.verify:verify",
        "Re-grade EPISODE_DIR's kept final state and print recorded vs re-computed reward.",
    ),
}
"""Each subcommand: where it lives and its one-line help."""


class _LazyGroup(click.Group):
    """A group that imports a subcommand only when it is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module, _, attribute = COMMANDS[cmd_name][0].partition(":")
            command: click.Command = getattr(importlib.import_module(module), attribute)
            return command
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx) if name in COMMANDS]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=_LazyGroup)
@click.version_option(package_name="lhtb")
@click.option("-v", "--verbose", count=True, help="Show library logs (-v info, -vv debug).")
def main(verbose: int) -> None:
    """lhtb: run long-horizon terminal benchmarks with hidden, isolated verifiers."""
    import structlog  # noqa: PLC0415 - heavy; not needed for --help

    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )
