"""Rebuild the derived state from the raw archive (and any spool files that failed).

    python3 -m tools.backfill [--spool-failed DIR]

Deletes the derived keys (sites, devices, reads, samples, observations) and
re-ingests every archived batch with the current code, without archiving it
again. Idempotent; safe while the service runs (queries see partial data
until it finishes).
"""

import argparse
import sys
from pathlib import Path

from gridtel import config, parsers
from gridtel.ingest import Ingestor
from gridtel.store import Store


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spool-failed", default="/var/spool/gridtel/failed")
    args = parser.parse_args(argv)
    conf = config.load()
    store = Store(conf.redis_url, conf.key_prefix)
    store.wait_ready()
    ingestor = Ingestor(store)
    store.drop_derived()
    done = bad = 0
    for feed in ("meter", "inverter", "weather"):
        for text in store.archived(feed):
            try:
                ingestor.accept(feed, text, archive=False)
                done += 1
            except parsers.FeedError:
                bad += 1
    failed_dir = Path(args.spool_failed)
    for path in sorted(failed_dir.glob("*.txt")) if failed_dir.is_dir() else ():
        try:
            ingestor.accept(path.stem.split("-", 1)[1], path.read_text())
            path.unlink()
            done += 1
        except parsers.FeedError:
            bad += 1
    print(f"backfilled {done} batch(es), {bad} unreadable")
    return 0


if __name__ == "__main__":
    sys.exit(main())
