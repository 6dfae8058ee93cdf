"""logq: filter and summarise JSON-lines access logs.

Usage: python3 logq.py LOGFILE [--where EXPR] [--group-by FIELD] [--top N] [-o OUT.json]

See /app/QUERY_LANGUAGE.md for the --where language and the output format.
The query is parsed with `ast`, checked against a whitelist of node types that
matches the documented grammar, compiled once, and evaluated with no builtins.
"""

import argparse
import ast
import json
import math
import sys

FIELDS = ("ts", "service", "method", "path", "status", "latency_ms", "user", "bytes")
_COMPARE_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class QueryError(Exception):
    """The --where expression is not a valid query."""


def _literal(node):
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, str)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = node.operand
        return isinstance(operand, ast.Constant) and type(operand.value) in (int, float)
    if isinstance(node, ast.Name):
        return node.id == "null"
    return False


def _operand(node):
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        if node.id in FIELDS or node.id == "null":
            return
        raise QueryError(f"unknown field {node.id!r}")
    if not _literal(node):
        raise QueryError(f"unsupported operand ({type(node).__name__})")


def _check(node):
    if isinstance(node, ast.BoolOp) and isinstance(node.op, (ast.And, ast.Or)):
        for value in node.values:
            _check(value)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _check(node.operand)
    elif isinstance(node, ast.Compare):
        _operand(node.left)
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(right, ast.List) or not right.elts:
                    raise QueryError("'in' needs a non-empty [list] of literals")
                for item in right.elts:
                    if not _literal(item):
                        raise QueryError("'in' lists may only hold literals")
            elif isinstance(op, _COMPARE_OPS):
                _operand(right)
            else:
                raise QueryError(f"unsupported operator {type(op).__name__}")
    else:
        raise QueryError(f"unsupported expression ({type(node).__name__})")


def compile_query(text):
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise QueryError(f"syntax error ({exc.msg})") from None
    _check(tree.body)
    return compile(tree, "<where>", "eval")


def load(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def select(records, code):
    env = {"__builtins__": {}}
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
