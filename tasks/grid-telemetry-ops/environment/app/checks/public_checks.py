"""Public checks: run against a gridtel service (default http://127.0.0.1:8080).

    python3 /app/checks/public_checks.py [--url URL]

Prints PASS/FAIL for:
  service_contract   /health, /v1/balance shape and error handling
  sample_balances    the bundled sample (site DEMO) gives samples/expected.json

It posts the sample batches (site DEMO) to the service first; posting them again
must not change any answer.
"""

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLE = HERE / "samples"
KEYS = ("site", "hour", "import_kwh", "pv_kwh", "load_kwh", "temp_c")
TOLERANCE_KWH = 0.02
TOLERANCE_C = 0.02


def get(url, timeout=30):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"null")
        except ValueError:
            return exc.code, None
    except (urllib.error.URLError, OSError, ValueError):
        return None, None


def post(url, text, timeout=30):
    request = urllib.request.Request(url, data=text.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def close(got, want):
    if not isinstance(got, dict):
        return False
    for key in ("import_kwh", "pv_kwh", "load_kwh"):
        value = got.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if abs(value - want[key]) > TOLERANCE_KWH + 1e-5 * abs(want[key]):
            return False
    if want["temp_c"] is None:
        return got.get("temp_c") is None
    value = got.get("temp_c")
    return isinstance(value, (int, float)) and abs(value - want["temp_c"]) <= TOLERANCE_C


def service_contract(url):
    status, body = get(f"{url}/health")
    if status != 200 or not isinstance(body, dict) or body.get("status") != "ok":
        return False, f"/health answered {status} {body!r}"
    status, body = get(f"{url}/v1/balance?site=NOSUCHSITE&hour=2026-01-01T00:00:00Z")
    if status != 200 or not isinstance(body, dict) or set(KEYS) - set(body):
        return False, f"/v1/balance of an unknown site answered {status} {body!r}"
    if body["import_kwh"] != 0 or body["pv_kwh"] != 0 or body["temp_c"] is not None:
        return False, f"an unknown site must have zero energy and no temperature: {body!r}"
    status, _ = get(f"{url}/v1/balance?site=DEMO&hour=not-a-time")
    if status != 400:
        return False, f"a bad hour must be a 400, got {status}"
    status = post(f"{url}/ingest/nosuchfeed", "x")
    if status != 400:
        return False, f"an unknown feed must be a 400, got {status}"
    return True, "ok"


def sample_balances(url):
    expected = json.loads((SAMPLE / "expected.json").read_text())
    for _round in range(2):  # posting twice must not change anything
        for path in sorted((SAMPLE / "batches").glob("*.txt")):
            feed = path.stem.split("-", 1)[1]
            status = post(f"{url}/ingest/{feed}", path.read_text())
            if status is None or not 200 <= status < 300:
                return False, f"{path.name}: HTTP {status}"
    time.sleep(3.0)
    wrong = []
    for want in expected:
        status, got = get(f"{url}/v1/balance?site={want['site']}&hour={want['hour']}")
        if status != 200 or not close(got, want):
            wrong.append((want["hour"], got))
    if wrong:
        hour, got = wrong[0]
        return False, f"{len(wrong)} of {len(expected)} hours differ; first {hour}: got {got!r}"
    return True, f"{len(expected)} hours match"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    args = parser.parse_args(argv)
    failed = 0
    for name, check in (("service_contract", service_contract), ("sample_balances", sample_balances)):
        try:
            ok, detail = check(args.url.rstrip("/"))
        except Exception as exc:  # noqa: BLE001 - report, do not crash
            ok, detail = False, f"{type(exc).__name__}: {exc}"
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
