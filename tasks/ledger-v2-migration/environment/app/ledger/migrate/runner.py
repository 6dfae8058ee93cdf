"""The migration runner.

A migration is ``ledger/migrations/NNNN_name.sql`` (statements separated by ';') or
``NNNN_name.py`` (a module with ``def up(conn)``). Applied versions are recorded in
``schema_migrations``. ``migrate`` applies every pending one in order.

TODO(ops): this was written for the 0001 bootstrap only; review before the v2 cut-over.
"""

import importlib.util
import os
import re
import sys

from ledger import db

HERE = os.path.dirname(os.path.abspath(__file__))
MIGRATIONS_DIR = os.path.join(os.path.dirname(HERE), "migrations")
NAME = re.compile(r"^(\d{4}_[a-z0-9_]+)\.(sql|py)$")


def discover(directory=MIGRATIONS_DIR):
    """[(version, path)] sorted by version."""
    found = []
    for name in os.listdir(directory):
        match = NAME.match(name)
        if match:
            found.append((match.group(1), os.path.join(directory, name)))
    return sorted(found)


def applied_versions(conn):
    if not db.table_exists(conn, "schema_migrations"):
        return set()
    return {r["version"] for r in db.fetch_all(conn, "SELECT version FROM schema_migrations")}


def status(conn):
    done = applied_versions(conn)
    return [(version, version in done) for version, _ in discover()]


def _split_sql(text):
    return [s.strip() for s in text.split(";") if s.strip()]


def _load_module(version, path):
    spec = importlib.util.spec_from_file_location(f"ledger_migration_{version}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def apply_one(conn, version, path):
    db.execute(conn, "INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
    if path.endswith(".sql"):
        with open(path, encoding="utf-8") as handle:
            for statement in _split_sql(handle.read()):
                db.execute(conn, statement)
    else:
        _load_module(version, path).up(conn)


def migrate(conn):
    """Apply the pending migrations; returns their versions."""
    done = applied_versions(conn)
    applied = []
    for version, path in discover():
        if version in done:
            continue
        print(f"applying {version} ...", file=sys.stderr)
        apply_one(conn, version, path)
        applied.append(version)
    return applied
