"""Seeded access-log generator and query suites for logq-hardening (verifier side)."""

import json
import random

SERVICES = ["auth", "billing", "search", "catalog", "cart", "media", "admin", "export"]
METHODS = ["GET", "GET", "GET", "POST", "PUT", "DELETE"]
ODD_PATHS = [
    "/static/__init__.js",
    "/search?q=import os",
    "/api/open('x')",
    "/api/it's",
    '/api/say "hi"',
    "/api/exec",
]


def records(seed, count, paths=60, users=300, null_rate=0.05):
    rng = random.Random(seed)
    path_pool = [f"/api/v{rng.randint(1, 3)}/{rng.choice(['items', 'orders', 'users', 'files'])}/{i}"
                 for i in range(paths)] + ODD_PATHS
    user_pool = [f"u{rng.randint(1000, 99999)}" for _ in range(users)]
    out = []
    for i in range(count):
        rec = {
            "ts": 1_700_000_000 + i * rng.randint(1, 3),
            "service": rng.choice(SERVICES),
            "method": rng.choice(METHODS),
            "path": rng.choice(path_pool),
            "status": rng.choice([200] * 12 + [201, 204, 301, 400, 401, 403, 404, 404, 500, 502, 503]),
            "latency_ms": round(rng.lognormvariate(3.5, 0.9), rng.choice([0, 1, 2])),
            "user": rng.choice(user_pool),
            "bytes": rng.randint(0, 50_000),
        }
        if rec["latency_ms"] == int(rec["latency_ms"]) and rng.random() < 0.5:
            rec["latency_ms"] = int(rec["latency_ms"])
        for field in ("latency_ms", "user", "service", "status"):
            roll = rng.random()
            if roll < null_rate / 2:
                rec[field] = None
            elif roll < null_rate:
                del rec[field]
        if rng.random() < 0.01:
            rec["status"] = str(rec.get("status"))  # legacy rows logged status as text
        out.append(rec)
    return out


def to_jsonl(recs):
    return "".join(json.dumps(r) + "\n" for r in recs)


def basic_queries(seed, count=20):
    """`count` seeded (where, group_by, top) triples using only the plain grammar."""
    rng = random.Random(seed * 7 + 1)
    fields = ["service", "method", "status", "path", "user"]

    def one():
        lat = rng.choice([40, 55, 80, 120, 200])
        svc = rng.choice(SERVICES)
        code = rng.choice([200, 301, 404, 500, 503])
        q = rng.choice('"\'')
        return rng.choice([
            f"status >= {rng.choice([400, 500])}",
            f"service == {q}{svc}{q} and latency_ms > {lat}",
            f'method in ["POST", "PUT"] or status == {code}',
            f"not (status == 200) and bytes < {rng.randint(5000, 40000)}",
            f"(service == \"{svc}\" or service == 'auth') and not method == 'GET'",
            f"latency_ms <= {lat}.5 and status != 200",
            f"status not in [200, 201, 204] and service != '{svc}'",
            f"bytes > {rng.randint(1000, 45000)} or method == 'DELETE'",
            f"service in ['{svc}', '{rng.choice(SERVICES)}'] and status < {code}",
            f"latency_ms > {lat} and latency_ms < {lat * 3}",
        ])

    out = [(None, "service", 10)]
    while len(out) < count:
        out.append((one(), rng.choice(fields), rng.choice([3, 5, 10])))
    return out


def edge_queries(seed):
    """20 queries whose semantics need care: nulls, type errors, short-circuit, odd strings."""
    rng = random.Random(seed * 7 + 2)
    lat = rng.choice([30, 60, 90])
    svc = rng.choice(SERVICES)
    return [
        ("user == null", "service", 10),
        ("service != null and user == null", "path", 10),
        (f"not (latency_ms > {lat})", "service", 10),
        (f"latency_ms > {lat} or status == 500", "service", 10),
        (f"status == 500 or latency_ms > {lat}", "service", 10),
        ("status > 299 and status < 500", "status", 20),
        ("status == '500' or status == 503", "service", 10),
        ("path == '/static/__init__.js'", "method", 10),
        ("path == \"/search?q=import os\" or path == \"/api/open('x')\"", "service", 10),
        ("path == '/api/it\\'s' or path == \"/api/say \\\"hi\\\"\"", "service", 10),
        (f"latency_ms == {rng.randint(20, 60)}.0 or latency_ms == -1", "service", 10),
        ("path in ['/api/exec', \"/api/open('x')\"] and not user == null", "user", 5),
        ("path > '/api/v2' and path < '/api/v3'", "service", 10),
        ("status >= -1 and -5 < bytes", "method", 10),
        (None, "user", 5),
        (f"not (user > 'u5') or service == '{svc}'", "service", 10),
        (f"service == '{svc}' or not (status < {rng.choice([300, 400])})", "method", 10),
        ("status in ['404', 404] and latency_ms >= 0", "path", 10),
        ("latency_ms != null and not (latency_ms < user)", "service", 10),
        (f"bytes == {rng.randint(0, 50_000)} or user not in [null, 'nobody']", "status", 10),
    ]


def unusual_queries(seed, count=20):
    """Valid queries that look suspicious (dunder and keyword strings, deep nesting, odd
    spacing): a hardened logq must accept them and answer exactly as the old one."""
    rng = random.Random(seed * 7 + 3)
    words = ["__import__", "open('/etc/passwd')", "exec", "eval(1)", "os.system", "__builtins__",
             "globals()", "getattr", "chr(95)*2", "lambda: 1", "[x for x in y]", "{0.__class__}",
             "f'{x}'", "compile", "subprocess", "__class__.__mro__", "%s%s", "import os; 1"]

    def lit(text):
        return rng.choice(["'", '"']).join(["", text.replace("\\", "\\\\").replace("'", "\\'").replace('"', '\\"'), ""])

    def one():
        word = rng.choice(words)
        svc = rng.choice(SERVICES)
        depth = rng.randint(3, 7)
        code = rng.choice([200, 404, 500])
        return rng.choice([
            f"path == {lit(word)} or service == {lit(svc)}",
            f"path != {lit(word)} and status == {code}",
            f"path in [{lit(word)}, {lit(rng.choice(words))}, '/api/exec'] or status == {code}",
            "(" * depth + f"status == {code}" + ")" * depth + f" and service != {lit(word)}",
            "not " * rng.randint(2, 5) + f"(user == {lit(word)})",
            f"status=={code} and(latency_ms>{rng.randint(5, 90)})or(path<{lit(word)})",
            f"{lit(word)} != path and -{rng.randint(1, 9)} < bytes",
            f"null == user or {lit(word)} == service",
            f"path not in [{lit(word)}] and method == 'GET'",
            f"service\t==\t{lit(svc)}\tand path != {lit(word)}",
        ])

    return [(one(), rng.choice(["service", "method", "status"]), 10) for _ in range(count)]


# -- injection payloads -------------------------------------------------------------------------
# Every payload creates MARKER when evaluated as Python (the shipped tool evals --where); none
# contains the words a blacklist would look for: names are built at run time.


def _name(rng, word):
    """An expression evaluating to the string `word` that does not contain it (nor "__")."""
    def chunk(text):
        return "'" + text + "'" if text else "''"
    under = rng.choice(["chr(95)*2", "'_'*2", "'_'+'_'", "chr(95)+chr(95)"])
    if word.startswith("__") and word.endswith("__"):
        core = word[2:-2]
        cut = rng.randint(1, len(core) - 1)
        return f"{under}+{chunk(core[:cut])}+{chunk(core[cut:])}+{under}"
    style = rng.randrange(5)
    if style == 0:
        cut = rng.randint(1, len(word) - 1)
        return f"{chunk(word[:cut])}+{chunk(word[cut:])}"
    if style == 1:
        return f"''.join(map(chr, {[ord(c) for c in word]}))"
    if style == 2:
        return f"{chunk(word[::-1])}[::-1]"
    if style == 3:
        return f"'{'%c' * len(word)}' % {tuple(ord(c) for c in word)}"
    cut = rng.randint(1, len(word) - 1)
    return f"'{{}}{{}}'.format({chunk(word[:cut])}, {chunk(word[cut:])})"


def _builtin(rng, word):
    """An expression evaluating to the builtin `word`, reached without naming it."""
    way = rng.randrange(4)
    if way == 0:
        return f"globals()[{_name(rng, '__builtins__')}][{_name(rng, word)}]"
    if way == 1:
        return f"globals().get({_name(rng, '__builtins__')}).get({_name(rng, word)})"
    if way == 2:
        return f"getattr(getattr(len, {_name(rng, '__self__')}), {_name(rng, word)})"
    return f"vars(getattr(abs, {_name(rng, '__self__')}))[{_name(rng, word)}]"


def _source(rng, marker):
    """An expression evaluating to the source text `open(marker, 'w')`."""
    text = f"open({marker!r}, 'w')"
    if rng.random() < 0.5:
        return f"str().join(chr(c) for c in {[ord(c) for c in text]})"
    return f"''.join(map(chr, {[ord(c) for c in text]}))"


def _wrap(rng, call):
    return rng.choice([
        f"({call}) and status == 200",
        f"status == 200 or ({call})",
        f"not ({call})",
        f"({call}) == 1",
        f"method == 'GET' or bytes >= 0 and ({call})",
    ])


def _calls(rng, m):
    """Calls of open/exec/eval/compile/print through obfuscated builtins."""
    family = rng.randrange(6)
    if family == 0:
        call = f"{_builtin(rng, 'open')}({m!r}, 'w')"
    elif family == 1:
        call = f"{_builtin(rng, 'exec')}({_source(rng, m)})"
    elif family == 2:
        call = f"{_builtin(rng, 'eval')}({_source(rng, m)})"
    elif family == 3:
        code = f"{_builtin(rng, 'compile')}({_source(rng, m)}, 'q', {_name(rng, 'eval')})"
        call = f"{_builtin(rng, 'eval')}({code})"
    elif family == 4:
        call = f"print(1, file={_builtin(rng, 'open')}({m!r}, 'w'))"
    else:
        call = f"list(map({_builtin(rng, 'open')}, [{m!r}], ['w']))"
    return _wrap(rng, call)


def _shapes(rng, m):
    """Escapes by shape: attribute chains, lambdas, comprehensions, walrus, format strings."""
    opener = _builtin(rng, "open")
    family = rng.randrange(8)
    if family == 0:
        chain = "()"
        for attr in ("__class__", "__base__"):
            chain = f"getattr({chain}, {_name(rng, attr)})"
        subclasses = f"getattr({chain}, {_name(rng, '__subclasses__')})()"
        pick = (f"[c for c in {subclasses} if getattr(c, {_name(rng, '__name__')}) == "
                f"{_name(rng, 'catch_warnings')}][0]")
        builtins = f"getattr(getattr({pick}(), {_name(rng, '_module')}), {_name(rng, '__builtins__')})"
        call = f"{builtins}[{_name(rng, 'open')}]({m!r}, 'w')"
    elif family == 1:
        call = f"(lambda f, p: f(p, 'w'))({opener}, {m!r})"
    elif family == 2:
        call = f"[f({m!r}, 'w') for f in [{opener}]]"
    elif family == 3:
        call = f"any(f({m!r}, 'w') for f in [{opener}])"
    elif family == 4:
        call = f"(g := {opener}) and g({m!r}, 'w')"
    elif family == 5:
        call = f"'{{0}}'.format({opener}({m!r}, 'w'))"
    elif family == 6:
        call = f"'%s' % ({opener}({m!r}, 'w'),)"
    else:
        call = f"{{k: {opener}({m!r}, 'w') for k in [1]}}"
    return _wrap(rng, call)


def injection_payloads(seed, call_markers, shape_markers):
    """(calls, shapes): one seeded payload per marker path, each creating its marker if
    evaluated; each must be rejected (exit 2) and have no effect."""
    rng = random.Random(seed * 7 + 4)
    calls = [_calls(rng, marker) for marker in call_markers]
    shapes = [_shapes(rng, marker) for marker in shape_markers]
    return calls, shapes


SAMPLE_SEED = 0
SAMPLE_SIZE = 400
SAMPLE_QUERIES = [
    {"where": None, "group_by": "service", "top": 10},
    {"where": "status >= 500", "group_by": "path", "top": 5},
    {"where": "service == 'search' and latency_ms > 50", "group_by": "method", "top": 10},
    {"where": "method in ['POST', 'PUT'] or not (status == 200)", "group_by": "status", "top": 10},
]
SAMPLE_INJECTION = "__import__('os').system('touch /tmp/logq-pwned')"
