"""Shortcut (weak): a seven-word blacklist in front of the original eval, with the fast
single-pass grouping. Obfuscated payloads (names built with chr(), concatenation, format
strings) pass the blacklist and run; valid queries that mention the words are refused.

logq: filter and summarise JSON-lines access logs.

Usage: python3 logq.py LOGFILE [--where EXPR] [--group-by FIELD] [--top N] [-o OUT.json]
"""

import argparse
import json
import math
import sys

FIELDS = ("ts", "service", "method", "path", "status", "latency_ms", "user", "bytes")


class QueryError(Exception):
    """The --where expression is not a valid query."""


BLACKLIST = ("import", "__", "open", "exec", "eval", "system", "compile")


def compile_query(text):
    lowered = text.lower()
    for word in BLACKLIST:
        if word in lowered:
            raise QueryError(f"forbidden word {word!r}")
    try:
        return compile(text.strip(), "<where>", "eval")
    except SyntaxError as exc:
        raise QueryError(f"syntax error ({exc.msg})") from None


def load(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def select(records, code):
    env = {}
    kept = []
    for record in records:
        namespace = {"null": None}
        for field in FIELDS:
            namespace[field] = record.get(field)
        try:
            if eval(code, env, namespace):
                kept.append(record)
        except TypeError:
            pass
    return kept


def summarise(records, group_by, top):
    groups = {}
    for record in records:
        key = record.get(group_by)
        entry = groups.get(key)
        if entry is None:
            entry = groups[key] = [key, 0, [], set()]
        entry[1] += 1
        latency = record.get("latency_ms")
        if latency is not None:
            entry[2].append(latency)
        user = record.get("user")
        if user is not None:
            entry[3].add(user)
    rows = []
    for key, count, latencies, users in groups.values():
        if latencies:
            ordered = sorted(latencies)
            mean = round(sum(latencies) / len(latencies), 3)
            p95 = ordered[math.ceil(0.95 * len(ordered)) - 1]
        else:
            mean = p95 = None
        rows.append({"key": key, "count": count, "mean_latency_ms": mean,
                     "p95_latency_ms": p95, "distinct_users": len(users)})
    rows.sort(key=lambda g: (-g["count"], "" if g["key"] is None else str(g["key"])))
    return rows[:top]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logfile")
    parser.add_argument("--where", default=None)
    parser.add_argument("--group-by", default="service", choices=FIELDS)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("-o", "--output", default=None)
    args = parser.parse_args(argv)
    code = None
    if args.where is not None:
        try:
            code = compile_query(args.where)
        except QueryError as exc:
            print(f"logq: invalid query: {exc}", file=sys.stderr)
            return 2
    records = load(args.logfile)
    if code is not None:
        records = select(records, code)
    result = {"matched": len(records), "groups": summarise(records, args.group_by, args.top)}
    text = json.dumps(result, indent=2)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
