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


def basic_queries(seed):
    """(where, group_by, top) triples using only the plain grammar."""
    rng = random.Random(seed * 7 + 1)
    lat = rng.choice([40, 55, 80, 120])
    svc = rng.choice(SERVICES)
    return [
        (None, "service", 10),
        (f"status >= {rng.choice([400, 500])}", "path", 5),
        (f"service == '{svc}' and latency_ms > {lat}", "method", 10),
        (f'method in ["POST", "PUT"] or status == {rng.choice([404, 500])}', "service", 3),
        (f"not (status == 200) and bytes < {rng.randint(5000, 40000)}", "status", 10),
        (f"(service == \"{svc}\" or service == 'auth') and not method == 'GET'", "user", 4),
        (f"latency_ms <= {lat}.5 and status != 200", "service", 10),
        ("status not in [200, 201, 204] and service != 'admin'", "path", 8),
    ]


def edge_queries(seed):
    """Queries whose semantics need care: nulls, type errors, short-circuit, odd strings."""
    rng = random.Random(seed * 7 + 2)
    lat = rng.choice([30, 60, 90])
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
    ]


def injection_payloads(marker):
    """Expressions that would create `marker` if evaluated; each must be rejected (exit 2)."""
    m = marker
    calls = [
        f"open('{m}', 'w').write('x') and status == 200",
        f"status == 200 or open('{m}', 'w')",
        f"exec(\"open('{m}', 'w')\")",
        f"eval(\"open('{m}', 'w')\") == 1",
        f"exec(''.join(map(chr, {[ord(c) for c in f'open({m!r}, chr(119))']})))",
        f"print(1, file=open('{m}', 'w'))",
        f"globals() and open('{m}', 'w')",
        f"vars() == open('{m}', 'w')",
        f"compile(\"open('{m}','w')\", 'q', 'exec') and exec(compile(\"open('{m}','w')\", 'q', 'exec'))",
        f"getattr(open('{m}', 'w'), 'close')()",
    ]
    shapes = [
        "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'catch_warnings']"
        f"[0]()._module.__builtins__['open']('{m}', 'w')",
        "[c for c in ().__class__.__mro__[1].__subclasses__() if c.__name__ == '_wrap_close']"
        f"[0].__init__.__globals__['system']('touch {m}')",
        f"__import__('os').system('touch {m}')",
        f"(lambda: open('{m}', 'w'))()",
        f"[open('{m}', 'w') for _ in [1]]",
        f"{{open('{m}', 'w')}}",
        f"(f := open('{m}', 'w'))",
        f"[1][0] == 1 and open('{m}', 'w')",
        f"status == 200 if open('{m}', 'w') else 1",
        f"path.startswith('/') or open('{m}', 'w')",
        f"f\"{{open('{m}', 'w')}}\" == path",
        f"{{'a': open('{m}', 'w')}}",
        f"not not open('{m}', 'w')",
    ]
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
