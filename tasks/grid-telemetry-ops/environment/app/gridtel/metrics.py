"""In-process request metrics for GET /metrics (counts and latency per route)."""

import threading
from collections import defaultdict


class Metrics:
    def __init__(self):
        self._lock = threading.Lock()
        self._count = defaultdict(int)
        self._seconds = defaultdict(float)
        self._status = defaultdict(int)

    def observe(self, method, path, status, seconds):
        route = f"{method} {path if not path.startswith('/ingest/') else path}"
        with self._lock:
            self._count[route] += 1
            self._seconds[route] += seconds
            self._status[str(status)] += 1

    def snapshot(self):
        with self._lock:
            routes = {
                route: {"count": n, "mean_ms": round(1000 * self._seconds[route] / n, 2)}
                for route, n in self._count.items()
            }
            return {"routes": routes, "status": dict(self._status)}
