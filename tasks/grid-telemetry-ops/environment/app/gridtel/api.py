"""The HTTP API (docs/api.md): ingest endpoints and hourly balance queries."""

import json
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from gridtel import __version__, dispatch, log, parsers, quality
from gridtel.model import HOUR_S
from gridtel.sites import SiteRegistry
from gridtel.timeutil import TimestampError, parse_hour

_log = log.get("api")
_INGEST = re.compile(r"^/ingest/([a-z]+)$")
_SITE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
MAX_DAY_HOURS = 24


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class Service:
    """What the handler needs: the ingestor, the balances, the store and the metrics."""

    def __init__(self, config, store, ingestor, balances, metrics):
        self.config = config
        self.store = store
        self.ingestor = ingestor
        self.balances = balances
        self.metrics = metrics
        self.sites = SiteRegistry()
        self.started = time.time()


def _one(query, name, required=True):
    values = query.get(name)
    if not values:
        if required:
            raise ApiError(400, f"missing query parameter {name!r}")
        return None
    return values[0]


def _site(query):
    site = _one(query, "site")
    if not _SITE.match(site):
        raise ApiError(400, f"bad site name {site!r}")
    return site


def _hour(query, name="hour"):
    try:
        return parse_hour(_one(query, name))
    except TimestampError as exc:
        raise ApiError(400, str(exc)) from None


def make_handler(service):
    class Handler(BaseHTTPRequestHandler):
        server_version = f"gridtel/{__version__}"
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # route access logs through logging
            _log.debug("%s %s", self.address_string(), fmt % args)

        def _send(self, status, payload):
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length > service.config.max_body_bytes:
                raise ApiError(413, "batch too large")
            raw = self.rfile.read(length) if length else b""
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, "batch is not UTF-8") from None

        def _dispatch(self, method):
            started = time.monotonic()
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            try:
                status, payload = self._route(method, url.path, query)
            except ApiError as exc:
                status, payload = exc.status, {"error": exc.message}
            except parsers.FeedError as exc:
                status, payload = 400, {"error": str(exc)}
            except Exception as exc:  # noqa: BLE001 - an API must answer
                _log.exception("%s %s failed", method, self.path)
                status, payload = 500, {"error": f"internal error: {type(exc).__name__}"}
            service.metrics.observe(method, url.path, status, time.monotonic() - started)
            self._send(status, payload)

        def do_GET(self):  # noqa: N802
            self._dispatch("GET")

        def do_POST(self):  # noqa: N802
            self._dispatch("POST")

        def _route(self, method, path, query):
            if method == "GET" and path == "/health":
                return 200, {"status": "ok", "version": __version__, "uptime_s": round(time.time() - service.started, 1)}
            if method == "GET" and path == "/v1/balance":
                return 200, service.balances.balance(_site(query), _hour(query))
            if method == "GET" and path == "/v1/balances":
                site = _site(query)
                start, end = _hour(query, "from"), _hour(query, "to")
                hours = (end - start) // HOUR_S
                if hours <= 0 or hours > MAX_DAY_HOURS:
                    raise ApiError(400, f"from..to must span 1 to {MAX_DAY_HOURS} hours")
                return 200, {"site": site, "balances": [service.balances.balance(site, start + k * HOUR_S) for k in range(hours)]}
            if method == "GET" and path == "/v1/dispatch-check":
                site = _site(query)
                balance = service.balances.balance(site, _hour(query))
                return 200, dispatch.report(balance, service.sites.get(site))
            if method == "GET" and path == "/v1/quality":
                site, day = _site(query), _hour(query, "day")
                if day % (24 * HOUR_S):
                    raise ApiError(400, "day must be a UTC midnight")
                return 200, quality.site_day(service.store, site, day)
            if method == "GET" and path == "/v1/sites":
                known = service.sites.all()
                return 200, {"sites": service.store.sites(), "master_data": sorted(known)}
            if method == "GET" and path == "/v1/devices":
                site = _site(query)
                return 200, {"site": site, "meters": service.store.meters_of(site), "inverters": service.store.inverters_of(site)}
            if method == "GET" and path == "/metrics":
                return 200, {"http": service.metrics.snapshot(), "store": service.store.stats()}
            match = _INGEST.match(path)
            if match and method == "POST":
                summary = service.ingestor.accept(match.group(1), self._body())
                return 202, summary
            raise ApiError(404, f"no route for {method} {path}")

    return Handler


def serve(service):
    """Serve until interrupted."""
    httpd = ThreadingHTTPServer(service.config.bind, make_handler(service))
    httpd.daemon_threads = True
    _log.info("listening on %s:%d", *service.config.bind)
    return httpd
