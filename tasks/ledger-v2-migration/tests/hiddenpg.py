"""A private PostgreSQL cluster for the hidden databases (unix socket only, never on the network).

The verifier (root) administers it as the ``postgres`` OS user; the agent's tool (run as
nobody) connects as role ``ledger`` (owner of the databases, not a superuser).
"""

import os
import shutil
import subprocess

import psycopg2

BIN = "/usr/lib/postgresql/15/bin"
DATA = "/var/lib/lhtb-hiddenpg/data"
SOCKET = "/var/run/lhtb-hiddenpg"


def _as_postgres(argv, **kwargs):
    return subprocess.run(["runuser", "-u", "postgres", "--", *argv], check=True, capture_output=True,
                          text=True, timeout=120, **kwargs)


def start():
    for path in (os.path.dirname(DATA), SOCKET):
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        shutil.chown(path, "postgres", "postgres")
    os.chmod(SOCKET, 0o755)
    _as_postgres([f"{BIN}/initdb", "-D", DATA, "-U", "postgres", "--auth-local=peer", "-E", "UTF8",
                  "--locale=C.UTF-8"])
    with open(os.path.join(DATA, "pg_hba.conf"), "w", encoding="utf-8") as handle:
        handle.write("local all postgres peer\nlocal all all trust\n")
    options = f"-c listen_addresses='' -c unix_socket_directories={SOCKET} -c fsync=off -c full_page_writes=off"
    _as_postgres([f"{BIN}/pg_ctl", "-D", DATA, "-o", options, "-w", "-l", os.path.join(DATA, "log"), "start"])
    admin("CREATE ROLE ledger LOGIN CREATEDB")


def stop():
    subprocess.run(["runuser", "-u", "postgres", "--", f"{BIN}/pg_ctl", "-D", DATA, "-m", "immediate", "stop"],
                   capture_output=True, timeout=60, check=False)


def admin(sql, dbname="postgres"):
    """Run ``sql`` as the superuser (psql, one transaction unless it is a CREATE/DROP DATABASE)."""
    _as_postgres(["psql", "-h", SOCKET, "-d", dbname, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql])


def admin_value(sql, dbname="postgres"):
    """The single value ``sql`` returns, as text (superuser)."""
    return _as_postgres(["psql", "-h", SOCKET, "-d", dbname, "-v", "ON_ERROR_STOP=1", "-qtA", "-c", sql]).stdout.strip()


def dsn(dbname):
    return f"host={SOCKET} dbname={dbname} user=ledger"


def connect(dbname):
    return psycopg2.connect(dsn(dbname))


def create(dbname, sql):
    """A new database owned by ledger, loaded with ``sql`` (as ledger)."""
    admin(f"DROP DATABASE IF EXISTS {dbname}")
    admin(f"CREATE DATABASE {dbname} OWNER ledger")
    conn = connect(dbname)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
        conn.commit()
    finally:
        conn.close()


FAULT_SCHEMA = "audit_hooks"


def arm_ddl_fault(dbname, nth):
    """The ``nth`` DDL command run in ``dbname`` fails (once)."""
    admin(f"""
CREATE SCHEMA {FAULT_SCHEMA};
CREATE SEQUENCE {FAULT_SCHEMA}.n;
CREATE FUNCTION {FAULT_SCHEMA}.ddl_guard() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  IF nextval('{FAULT_SCHEMA}.n') = {int(nth)} THEN
    RAISE EXCEPTION 'could not write to file "base/16384/2619": No space left on device';
  END IF;
END $$;
CREATE EVENT TRIGGER ddl_guard ON ddl_command_end EXECUTE FUNCTION {FAULT_SCHEMA}.ddl_guard();
""", dbname)


def arm_insert_fault(dbname, table):
    """The first row inserted into the table ``public.<table>`` (created later) fails (once)."""
    admin(f"""
CREATE SCHEMA {FAULT_SCHEMA};
CREATE SEQUENCE {FAULT_SCHEMA}.n;
CREATE FUNCTION {FAULT_SCHEMA}.row_guard() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  IF nextval('{FAULT_SCHEMA}.n') = 1 THEN
    RAISE EXCEPTION 'terminating connection due to administrator command';
  END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION {FAULT_SCHEMA}.attach() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_ddl_commands() LOOP
    IF r.object_identity = 'public.{table}' AND r.object_type = 'table' THEN
      EXECUTE 'CREATE TRIGGER row_guard BEFORE INSERT ON public.{table} FOR EACH ROW '
              'EXECUTE FUNCTION {FAULT_SCHEMA}.row_guard()';
    END IF;
  END LOOP;
END $$;
CREATE EVENT TRIGGER attach_guard ON ddl_command_end WHEN TAG IN ('CREATE TABLE')
  EXECUTE FUNCTION {FAULT_SCHEMA}.attach();
""", dbname)


def disarm(dbname):
    admin("DROP EVENT TRIGGER IF EXISTS ddl_guard; DROP EVENT TRIGGER IF EXISTS attach_guard; "
          f"DROP SCHEMA IF EXISTS {FAULT_SCHEMA} CASCADE", dbname)
