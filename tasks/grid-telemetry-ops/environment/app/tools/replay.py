"""Post feed batches to a running gridtel service.

    python3 -m tools.replay DIR [--url URL] [--move-to DONE_DIR --failed-to FAILED_DIR]
    python3 -m tools.replay --from-archive [--url URL]   # re-post Redis's raw archive

Batch files are named ``<seq>-<feed>.txt`` and posted in name order to
``/ingest/<feed>``. The boot-time feeder uses ``--move-to``/``--failed-to`` so
that each spool file ends up in sent/ or failed/.
"""

import argparse
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:8080"


def post(url, feed, text, timeout=30):
    """POST one batch; returns (status, body)."""
    request = urllib.request.Request(
        f"{url}/ingest/{feed}", data=text.encode(), method="POST",
        headers={"Content-Type": "text/plain; charset=utf-8"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


def wait_healthy(url, timeout_s=120.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                if response.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(1.0)
    return False


def feed_of(path):
    stem = path.stem
    return stem.split("-", 1)[1] if "-" in stem else stem


def replay_directory(url, directory, move_to=None, failed_to=None, pause_s=0.0):
    sent = failed = 0
    for path in sorted(Path(directory).glob("*.txt")):
        status, body = post(url, feed_of(path), path.read_text())
        ok = 200 <= status < 300
        sent += ok
        failed += not ok
        if not ok:
            print(f"{path.name}: HTTP {status}: {body[:200]}", file=sys.stderr)
        target = move_to if ok else failed_to
        if target is not None:
            Path(target).mkdir(parents=True, exist_ok=True)
            path.rename(Path(target) / path.name)
        if pause_s:
            time.sleep(pause_s)
    return sent, failed


def replay_archive(url, store):
    sent = failed = 0
    for feed in ("meter", "inverter", "weather"):
        for text in store.archived(feed):
            status, _body = post(url, feed, text)
            sent += 200 <= status < 300
            failed += not 200 <= status < 300
    return sent, failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("--move-to")
    parser.add_argument("--failed-to")
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between batches")
    parser.add_argument("--from-archive", action="store_true")
    parser.add_argument("--wait", action="store_true", help="wait for /health first")
    args = parser.parse_args(argv)
    if args.wait and not wait_healthy(args.url):
        print(f"{args.url} is not healthy", file=sys.stderr)
        return 1
    if args.from_archive:
        from gridtel import config
        from gridtel.store import Store

        conf = config.load()
        sent, failed = replay_archive(args.url, Store(conf.redis_url, conf.key_prefix))
    elif args.directory:
        sent, failed = replay_directory(args.url, args.directory, args.move_to, args.failed_to, args.pause)
    else:
        parser.error("give a directory or --from-archive")
    print(f"sent {sent} batch(es), {failed} failed")
    return 0 if not failed else 2


if __name__ == "__main__":
    sys.exit(main())
