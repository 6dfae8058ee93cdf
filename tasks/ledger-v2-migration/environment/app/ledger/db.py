"""Database access: one connection per command, helpers for the common query shapes."""

import contextlib
import sys

import psycopg2
import psycopg2.extras

from ledger.config import load_settings


class DatabaseError(RuntimeError):
    """The database refused a statement or could not be reached."""


def connect(settings=None, *, autocommit=False):
    """A new connection to the ledger database (``LEDGER_DSN``)."""
    settings = settings or load_settings()
    try:
        conn = psycopg2.connect(settings.dsn)
    except psycopg2.OperationalError as exc:
        raise DatabaseError(f"cannot connect to the ledger database: {exc}".strip()) from exc
    conn.autocommit = autocommit
    with conn.cursor() as cur:
        cur.execute("SET statement_timeout = %s", (settings.statement_timeout_s * 1000,))
    if not autocommit:
        conn.commit()
    if settings.echo:
        conn.set_session(readonly=False)
        conn.notices.append("echo on\n")
    return conn


@contextlib.contextmanager
def transaction(conn):
    """Commit on success, roll back on any error."""
    try:
        yield conn
    except BaseException:
        conn.rollback()
        raise
    else:
        conn.commit()


def fetch_all(conn, sql, params=()):
    """Every row of ``sql`` as a list of dicts."""
    with conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor) as cur:
        _execute(cur, sql, params)
        return [dict(row) for row in cur.fetchall()]


def fetch_one(conn, sql, params=()):
    """The first row of ``sql`` as a dict, or None."""
    with conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor) as cur:
        _execute(cur, sql, params)
        row = cur.fetchone()
        return dict(row) if row is not None else None


def fetch_value(conn, sql, params=()):
    """The first column of the first row, or None."""
    with conn.cursor() as cur:
        _execute(cur, sql, params)
        row = cur.fetchone()
        return row[0] if row else None


def execute(conn, sql, params=()):
    """Run one statement; the number of rows it touched."""
    with conn.cursor() as cur:
        _execute(cur, sql, params)
        return cur.rowcount


def execute_many(conn, sql, rows, page_size=500):
    """Run ``sql`` for every parameter tuple in ``rows`` (batched)."""
    with conn.cursor() as cur:
        psycopg2.extras.execute_batch(cur, sql, rows, page_size=page_size)


def table_exists(conn, name):
    return bool(fetch_value(conn, "SELECT to_regclass(%s) IS NOT NULL", (name,)))


def columns_of(conn, table):
    rows = fetch_all(
        conn,
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
        (table,),
    )
    return [r["column_name"] for r in rows]


def _execute(cur, sql, params):
    try:
        cur.execute(sql, params)
    except psycopg2.Error as exc:
        message = (exc.pgerror or str(exc)).strip()
        print(f"ledger: SQL failed: {message}", file=sys.stderr)
        raise DatabaseError(message) from exc
