"""logq: filter and summarise JSON-lines access logs.

Usage: python3 logq.py LOGFILE [--where EXPR] [--group-by FIELD] [--top N] [-o OUT.json]

See /app/QUERY_LANGUAGE.md for the --where language and the output format.
"""

import argparse
import json
import math
import sys

FIELDS = ("ts", "service", "method", "path", "status", "latency_ms", "user", "bytes")


class QueryError(Exception):
    """The --where expression is not a valid query."""


def load(path):
    records = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line:
                records.append(json.loads(line))
    return records


def matches(expr, record):
    namespace = {"null": None}
    for field in FIELDS:
        namespace[field] = record.get(field)
    try:
        return bool(eval(expr, {}, namespace))
    except NameError as exc:
        raise QueryError(f"unknown field ({exc})") from None
    except SyntaxError as exc:
        raise QueryError(f"syntax error ({exc.msg})") from None
    except TypeError:
        # e.g. null > 5 or 500 < "abc": the record does not match
        return False


def p95(values):
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


def sort_key(group):
    key = group["key"]
    return (-group["count"], "" if key is None else str(key))


def summarise(records, group_by, top):
    keys = []
    for record in records:
        key = record.get(group_by)
        if key not in keys:
            keys.append(key)
    groups = []
    for key in keys:
        members = [r for r in records if r.get(group_by) == key]
        latencies = [m["latency_ms"] for m in members if m.get("latency_ms") is not None]
        users = []
        for member in members:
            user = member.get("user")
            if user is not None and user not in users:
                users.append(user)
        groups.append(
            {
                "key": key,
                "count": len(members),
                "mean_latency_ms": round(sum(latencies) / len(latencies), 3) if latencies else None,
                "p95_latency_ms": p95(latencies) if latencies else None,
                "distinct_users": len(users),
            }
        )
    groups.sort(key=sort_key)
    return groups[:top]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logfile")
    parser.add_argument("--where", default=None)
    parser.add_argument("--group-by", default="service", choices=FIELDS)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("-o", "--output", default=None)
    args = parser.parse_args(argv)
    records = load(args.logfile)
    try:
        if args.where is not None:
            records = [r for r in records if matches(args.where, r)]
    except QueryError as exc:
        print(f"logq: invalid query: {exc}", file=sys.stderr)
        return 2
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
