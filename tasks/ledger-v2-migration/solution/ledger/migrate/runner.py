"""The migration runner.

A migration is ``ledger/migrations/NNNN_name.sql`` (statements separated by ';') or
``NNNN_name.py`` (a module with ``def up(conn)``). Applied versions are recorded in
``schema_migrations``. ``migrate`` applies every pending one in order.

Each migration runs in one transaction together with its ``schema_migrations`` row,
under an advisory lock: a migration that fails or is killed leaves nothing behind, two
runners never apply the same migration, and a re-run applies only what is missing.
"""

import importlib.util
import os
import re
import sys

from ledger import db

HERE = os.path.dirname(os.path.abspath(__file__))
MIGRATIONS_DIR = os.path.join(os.path.dirname(HERE), "migrations")
NAME = re.compile(r"^(\d{4}_[a-z0-9_]+)\.(sql|py)$")
LOCK_KEY = 7242024


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
    conn.rollback()
    return [(version, version in done) for version, _ in discover()]


def _split_sql(text):
    return [s.strip() for s in text.split(";") if s.strip()]


def _load_module(version, path):
    spec = importlib.util.spec_from_file_location(f"ledger_migration_{version}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def apply_one(conn, version, path):
    """Apply one migration in its own transaction; False when another run already did."""
    with db.transaction(conn):
        db.execute(conn, "SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        db.execute(conn, "CREATE TABLE IF NOT EXISTS schema_migrations "
                         "(version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        if version in applied_versions(conn):
            return False
        if path.endswith(".sql"):
            with open(path, encoding="utf-8") as handle:
                for statement in _split_sql(handle.read()):
                    db.execute(conn, statement)
        else:
            _load_module(version, path).up(conn)
        db.execute(conn, "INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
    return True


def migrate(conn):
    """Apply the pending migrations; returns their versions."""
    conn.autocommit = False
    done = applied_versions(conn)
    conn.rollback()
    applied = []
    for version, path in discover():
        if version in done:
            continue
        print(f"applying {version} ...", file=sys.stderr)
        if apply_one(conn, version, path):
            applied.append(version)
    return applied
