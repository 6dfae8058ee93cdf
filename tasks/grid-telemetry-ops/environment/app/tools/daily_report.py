"""The planners' daily CSV: 24 hourly balances per site from a running service.

    python3 -m tools.daily_report 2026-03-29 [--site NORTH ...] [--url URL] [-o FILE]

Without --site, every site the service knows (GET /v1/sites) is reported.
"""

import argparse
import csv
import json
import sys
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone

DEFAULT_URL = "http://127.0.0.1:8080"
COLUMNS = ("site", "hour", "import_kwh", "pv_kwh", "load_kwh", "temp_c")


def _get(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def day_start(text):
    try:
        day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        raise SystemExit(f"daily_report: day must be YYYY-MM-DD, got {text!r}") from None
    return day


def rows(url, site, day):
    start = day.strftime("%Y-%m-%dT%H:%M:%SZ")
    end = (day + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    query = urllib.parse.urlencode({"site": site, "from": start, "to": end})
    return _get(f"{url}/v1/balances?{query}")["balances"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("day")
    parser.add_argument("--site", action="append")
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("-o", "--output")
    args = parser.parse_args(argv)
    day = day_start(args.day)
    sites = args.site or _get(f"{args.url}/v1/sites")["sites"]
    out = open(args.output, "w", newline="") if args.output else sys.stdout  # noqa: SIM115
    try:
        writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        totals = {}
        for site in sites:
            for balance in rows(args.url, site, day):
                writer.writerow(balance)
                total = totals.setdefault(site, [0.0, 0.0])
                total[0] += balance["import_kwh"]
                total[1] += balance["pv_kwh"]
    finally:
        if out is not sys.stdout:
            out.close()
    for site, (imported, produced) in sorted(totals.items()):
        print(f"{site}: import {imported:.1f} kWh, PV {produced:.1f} kWh", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
