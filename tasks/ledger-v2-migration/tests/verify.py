"""Hidden checks for ledger-v2-migration. Writes /logs/verifier/scorecard.json.

The pass is live: this sandbox shares the agent's network, so the production database
answers on host ``db``. It is read first, before any of the agent's code runs here. Then
the agent's tool (``python3 -m ledger ...`` from /app) runs through ``run_untrusted`` (as
nobody, /tests and /logs/verifier locked) against fresh databases in a private PostgreSQL
cluster that listens on a unix socket only: the sample, a seeded messy database, and
copies of it where a failure is injected part-way through the migration.
"""

import csv
import io
import json
import os
import random
import sys
import time
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import psycopg2  # noqa: E402

import hiddenpg  # noqa: E402
import ledgergen as gen  # noqa: E402
import ledgerref as ref  # noqa: E402
import v2read  # noqa: E402
from lhtb_scorecard import Scorecard, UntrustedResult, read_output, readable, run_untrusted, scratch_dir  # noqa: E402
from lhtb_scorecard import seed as kit_seed  # noqa: E402

APP = Path(os.environ.get("LHTB_APP", "/app"))
SCORECARD = os.environ.get("LHTB_SCORECARD", "/logs/verifier/scorecard.json")
LIVE_DSN = os.environ.get("LEDGER_LIVE_DSN", "host=db dbname=ledger user=ledger password=ledger connect_timeout=15")
LIVE_MONTH = "2024-06"
SAMPLE_SEED = 7
HEADER = ["customer_id", "email", "currency", "opening_cents", "invoiced_cents", "adjustments_cents",
          "received_cents", "closing_cents"]
SPEC_FOREIGN_KEYS = 8
BUDGET_SEC = 420.0
"""All runs of the agent's tool share this budget (the pass's limit is 600 s): a tool that
hangs costs its own subtasks, never the scorecard."""
_DEADLINE = time.monotonic() + BUDGET_SEC


# -- reading databases ------------------------------------------------------------------------


def _norm(value):
    if value is None:
        return None
    if isinstance(value, int):
        return value
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    try:
        if isinstance(value, (Decimal, float)) or (text[:1].isdigit() and "." in text and text.count(".") == 1
                                                   and text.replace(".", "").isdigit()):
            return format(Decimal(text).normalize(), "f")
    except ArithmeticError:
        pass
    return text


def legacy_intact(conn, tables):
    """Fraction of the four v1 tables kept as legacy_* with exactly the original rows."""
    kept = 0
    for table, columns in gen.COLUMNS.items():
        try:
            with conn.cursor() as cur:
                cur.execute(f"SELECT {', '.join(columns)} FROM legacy_{table} ORDER BY id")  # noqa: S608
                got = [tuple(_norm(v) for v in row) for row in cur.fetchall()]
        except psycopg2.Error:
            conn.rollback()
            continue
        want = [tuple(_norm(v) for v in row) for row in sorted(tables[table], key=lambda r: r[0])]
        kept += got == want
    return kept / len(gen.COLUMNS)


def migrated(conn):
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM schema_migrations WHERE version LIKE '0002%%'")
            return cur.fetchone()[0] == 1
    except psycopg2.Error:
        conn.rollback()
        return False


def read_state(conn):
    try:
        return v2read.read_state(conn)
    except psycopg2.Error:
        conn.rollback()
        return None


def foreign_keys(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY'"
                    " AND table_name IN ('customer_aliases', 'accounts', 'invoices', 'invoice_lines', 'payments',"
                    " 'adjustments')")
        return cur.fetchone()[0]


def snapshot(conn):
    """Everything a re-run must leave alone (surrogate ids included)."""
    state = read_state(conn)
    with conn.cursor() as cur:
        extra = []
        for sql in ("SELECT version, applied_at::text FROM schema_migrations ORDER BY 1",
                    "SELECT id, customer_id, currency FROM accounts ORDER BY 1",
                    "SELECT id, invoice_id, account_id, amount_cents FROM adjustments ORDER BY 1"):
            try:
                cur.execute(sql)
                extra.append(cur.fetchall())
            except psycopg2.Error:
                conn.rollback()
                extra.append(None)
    return state, extra


# -- running the agent's tool -----------------------------------------------------------------


def untrusted_parent():
    """A root-owned, world-searchable parent for scratch directories: in a live pass the
    tests' TMPDIR is private to root, so the kit's default parent is out of nobody's reach."""
    path = "/var/lib/lhtb-untrusted"
    os.makedirs(path, mode=0o711, exist_ok=True)
    os.chmod(path, 0o711)
    return path


def run_tool(args, dbname, *, timeout=90, scratch=None):
    """The tool's run (as nobody); a timed-out result without running once the budget is spent."""
    timeout = min(timeout, _DEADLINE - time.monotonic())
    if timeout < 1:
        return UntrustedResult(args, -9, "", "the verifier's time budget for the tool is spent", timed_out=True)
    scratch = scratch or scratch_dir(parent=untrusted_parent())
    return run_untrusted([sys.executable, "-m", "ledger", *args], cwd=str(APP), timeout=timeout, text=True,
                         env={"LEDGER_DSN": hiddenpg.dsn(dbname)}, scratch=scratch)


def in_db(dbname, fn):
    conn = hiddenpg.connect(dbname)
    try:
        return fn(conn)
    finally:
        conn.close()


# -- scoring helpers --------------------------------------------------------------------------


def lines_by_invoice(want):
    out = {}
    for lid, values in want["lines"].items():
        out.setdefault(str(values[0]), []).append(lid)
    return out


def account_balances(state):
    """{"customer:currency": cents} of a canonical state, from its own rows (void excluded)."""
    out = {key: 0 for key in state.get("accounts", {})}
    void = set()
    for iid, row in state.get("invoices", {}).items():
        key = f"{row[0]}:{row[1]}"
        if row[4] == "void":
            void.add(iid)
            continue
        out[key] = out.get(key, 0) + (row[7] if isinstance(row[7], int) else 0)
    for iid, entries in state.get("adjustments", {}).items():
        for entry in entries:
            if iid not in void and isinstance(entry[0], int):
                key = f"{entry[2]}:{entry[3]}"
                out[key] = out.get(key, 0) + entry[0]
    for row in state.get("payments", {}).values():
        key = f"{row[0]}:{row[1]}"
        out[key] = out.get(key, 0) - (row[3] if isinstance(row[3], int) else 0)
    return out


def entity_ok(key, got, want, lines_of, balances):
    """The entity's rows are exactly right and every account it touches balances to the cent."""
    kind, ident = key.split(":")
    if kind == "invoice":
        pairs = [("invoices", ident), ("adjustments", ident)] + [("lines", lid) for lid in lines_of.get(ident, [])]
        accounts = [f"{want['invoices'][ident][0]}:{want['invoices'][ident][1]}"]
    elif kind == "payment":
        pairs = [("payments", ident)]
        accounts = [f"{want['payments'][ident][0]}:{want['payments'][ident][1]}"]
    else:
        survivor = want["aliases"][ident][0]
        pairs = [("aliases", ident), ("customers", str(survivor))]
        accounts = [k for k in want["accounts"] if k.split(":")[0] == str(survivor)]
    rows_ok = all(got.get(t, {}).get(k) == want[t].get(k) for t, k in pairs)
    return rows_ok and all(balances[0].get(a) == balances[1].get(a) for a in accounts)


def fraction(keys, got, want, lines_of):
    """Fraction of the tagged entities that are right (see entity_ok)."""
    keys = sorted(keys)
    if not keys or got is None:
        return 0.0
    balances = (account_balances(got), account_balances(want))
    return sum(entity_ok(k, got, want, lines_of, balances) for k in keys) / len(keys)


def report_score(out_dir, expected_rows, expected_summary):
    """0.8 x the fraction of trial-balance rows exactly right + 0.2 for the summary."""
    text = read_output(out_dir / "trial_balance.csv")
    if text is None:
        return 0.0, "no trial_balance.csv"
    table = list(csv.reader(io.StringIO(text)))
    if not table or table[0] != HEADER:
        return 0.0, "trial_balance.csv: wrong header"
    got = {tuple(row) for row in table[1:]}
    want = [tuple(str(v) for v in row) for row in expected_rows]
    rows = sum(row in got for row in want) / len(want) if want else 0.0
    if len(table) - 1 != len(want):
        rows *= min(len(want), len(table) - 1) / max(len(want), len(table) - 1)
    summary = read_output(out_dir / "summary.json")
    try:
        same = json.loads(summary) == expected_summary if summary is not None else False
    except ValueError:
        same = False
    return 0.8 * rows + 0.2 * same, f"{rows:.2f} of the rows, summary {'ok' if same else 'wrong'}"


# -- the checks -------------------------------------------------------------------------------


def check_live(card):
    tables, _ = gen.dataset(gen.PRODUCTION_SEED, "production")
    state = ref.migrate(tables)
    want = ref.canon(state)
    try:
        conn = psycopg2.connect(LIVE_DSN)
    except psycopg2.Error as exc:
        card.add("live_database", 0.0, weight=2, message=f"cannot reach the live database: {exc}"[:300])
    else:
        try:
            got = read_state(conn)
            kept = legacy_intact(conn, tables)
            done = migrated(conn)
        finally:
            conn.close()
        same = [got is not None and got.get(t) == rows for t, rows in want.items()]
        score = kept * sum(same) / len(same) if done else 0.0  # v2 right, and nothing of v1 lost
        wrong = [t for t, ok in zip(want, same) if not ok]
        card.add("live_database", score, weight=2,
                 message=f"migrated={done}, legacy kept {kept:.2f}, v2 tables wrong: {wrong or 'none'}")
    rows, summary = ref.month_end(state, LIVE_MONTH)
    score, note = report_score(APP / "out" / f"month-end-{LIVE_MONTH}", rows, summary)
    card.add("live_month_end", score, weight=1, message=note)


def check_sample(card, sql, want):
    hiddenpg.create("sample_check", sql)
    proc = run_tool(["migrate"], "sample_check")
    got, done, shaped = None, False, False
    conn = hiddenpg.connect("sample_check")
    try:
        done = migrated(conn)
        got = read_state(conn)
        shaped = got is not None and legacy_intact(conn, gen.dataset(SAMPLE_SEED, "sample")[0]) == 1.0
    finally:
        conn.close()
    card.check("migrate_sample", bool(proc.ok and done and shaped), weight=1, visibility="public",
               message=None if proc.ok else (proc.stderr or "")[-300:])
    card.check("sample_matches", bool(proc.ok and done and got is not None and not v2read.differences(got, want)),
               weight=1, visibility="public")


def check_hidden(card, seed):
    rng = random.Random(f"verify-{seed}")
    tables, tags = gen.dataset(seed, "hidden")
    sql = gen.to_sql(tables)
    state = ref.migrate(tables)
    want = ref.canon(state)
    lines_of = lines_by_invoice(want)

    hiddenpg.create("hidden_main", sql)
    proc = run_tool(["migrate"], "hidden_main")
    conn = hiddenpg.connect("hidden_main")
    try:
        done = proc.ok and migrated(conn)
        got = read_state(conn) if done else None
        kept = legacy_intact(conn, tables)
        fks = foreign_keys(conn) if done else 0
    finally:
        conn.close()
    note = f"seed {seed}" + ("" if done else f"; the migration did not complete: {(proc.stderr or '')[-200:]}")
    card.add("amounts", fraction(tags["amounts"], got, want, lines_of), weight=3, message=note)
    card.add("currencies", fraction(tags["currency"], got, want, lines_of), weight=2)
    card.add("customer_merge", fraction(tags["customer_merge"], got, want, lines_of), weight=3)
    card.add("tax_rounding", fraction(tags["tax_rounding"], got, want, lines_of), weight=3)
    card.add("legacy_and_void", fraction(tags["legacy_void"], got, want, lines_of), weight=2)
    card.add("unapplied_payments", fraction(tags["unapplied"], got, want, lines_of), weight=2)
    exact = got is not None and not v2read.differences(got, want)
    parts = [exact, kept == 1.0, fks >= SPEC_FOREIGN_KEYS]
    card.add("integrity", sum(parts) / 3 if done else 0.0, weight=1,
             message=f"all rows exact={exact}, legacy kept={kept:.2f}, foreign keys={fks}")

    noop = False
    if done:
        before = in_db("hidden_main", snapshot)
        again = run_tool(["migrate"], "hidden_main")
        noop = again.ok and in_db("hidden_main", snapshot) == before
    card.check("rerun_is_noop", bool(noop), weight=1)

    card.add("balance_command", balance_score(rng, tables, state, done), weight=2)
    month = rng.choice(["2024-03", "2024-04", "2024-05", "2024-06"])
    score, note = 0.0, "the migration did not complete"
    if done:
        scratch = scratch_dir(parent=untrusted_parent())
        out = Path(scratch) / "close"
        run_tool(["report", "month-end", "--month", month, "--out", str(out)], "hidden_main", scratch=scratch)
        rows, summary = ref.month_end(state, month)
        score, note = report_score(out, rows, summary)
    card.add("month_end_report", score, weight=2, message=f"{month}: {note}")

    faults = [("ddl", rng.choice([2, 3, 4])), ("ddl", rng.choice([6, 7, 8, 9])),
              ("insert", rng.choice(["invoice_lines", "payments"])), ("insert", "adjustments")]
    if done:
        results = [resume_case(i, kind, arg, sql, tables, want) for i, (kind, arg) in enumerate(faults)]
    else:  # a migration that does not complete cannot complete after a failure either
        results = [(False, "the migration did not complete")] * len(faults)
    card.add("resume_after_failure", sum(ok for ok, _ in results) / len(results), weight=3,
             message="; ".join(f"{k}:{a} {why}" for (k, a), (_, why) in zip(faults, results)))


def balance_score(rng, tables, state, done):
    if not done:
        return 0.0
    groups = {}
    for row in tables["customers"]:
        groups.setdefault(state["aliases"][row[0]], []).append(row)
    merged = sorted(c for c, members in groups.items() if len(members) > 1)
    single = sorted(c for c, members in groups.items() if len(members) == 1)
    chosen = rng.sample(merged, min(6, len(merged))) + rng.sample(single, 12 - min(6, len(merged)))
    hits = 0
    for customer in chosen:
        member = rng.choice(groups[customer][1:] or groups[customer])
        proc = run_tool(["balance", member[2]], "hidden_main", timeout=20)
        want = {f"{cur} {gen._clean_amount(cents)}" for cur, cents in ref.balances(state, customer).items()}
        got = {line.strip() for line in (proc.stdout or "").splitlines() if line.strip()}
        hits += proc.ok and got == want
    return hits / len(chosen)


def resume_case(index, kind, arg, sql, tables, want):
    name = f"hidden_fault_{index}"
    hiddenpg.create(name, sql)
    if kind == "ddl":
        hiddenpg.arm_ddl_fault(name, arg)
    else:
        hiddenpg.arm_insert_fault(name, arg)
    first = run_tool(["migrate"], name)

    value = hiddenpg.admin_value(f"SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM {hiddenpg.FAULT_SCHEMA}.n",
                                 name)
    hit = int(value) >= (arg if kind == "ddl" else 1)
    hiddenpg.disarm(name)
    if hit and first.ok:
        return False, "the failed run exited 0"
    second = run_tool(["migrate"], name)
    conn = hiddenpg.connect(name)
    try:
        done = migrated(conn)
        got = read_state(conn)
        kept = legacy_intact(conn, tables)
    finally:
        conn.close()
    ok = second.ok and done and got is not None and not v2read.differences(got, want) and kept == 1.0
    return ok, "ok" if ok else f"after the re-run: migrated={done}, kept={kept:.2f}, exact={ok}"


WEIGHTS = {"migrate_sample": 1, "sample_matches": 1, "live_database": 2, "live_month_end": 1, "amounts": 3,
           "currencies": 2, "customer_merge": 3, "tax_rounding": 3, "legacy_and_void": 2, "unapplied_payments": 2,
           "integrity": 1, "rerun_is_noop": 1, "balance_command": 2, "month_end_report": 2,
           "resume_after_failure": 3}
PUBLIC = {"migrate_sample", "sample_matches"}


def main():
    seed = kit_seed()
    card = Scorecard()
    failure = None
    try:
        check_live(card)  # before any agent code runs in this sandbox
        readable(APP)
        hiddenpg.start()
        try:
            tables, _ = gen.dataset(SAMPLE_SEED, "sample")
            check_sample(card, gen.to_sql(tables), ref.canon(ref.migrate(tables)))
            check_hidden(card, seed)
        finally:
            hiddenpg.stop()
    except Exception as exc:  # noqa: BLE001 - whatever the submission did, every subtask gets a score
        failure = f"stopped early: {type(exc).__name__}: {exc}"[:300]
        print(failure, file=sys.stderr)
    recorded = {entry["name"] for entry in card.to_dict()["subtasks"]}
    for name, weight in WEIGHTS.items():
        if name not in recorded:
            card.add(name, 0.0, weight=weight, visibility="public" if name in PUBLIC else "hidden", message=failure)
    card.write(SCORECARD)


if __name__ == "__main__":
    main()
