"""Ingestion: parse a batch, archive it, hand its records to the store.

Records go through a write-behind buffer: the HTTP handler answers as soon as a
batch is parsed and a background thread writes the buffer to Redis every
``flush_interval_s`` (or when it holds ``flush_max_items`` records), so a burst
of uploads costs one pipeline instead of hundreds of round trips.
"""

import threading

from gridtel import log, parsers
from gridtel.model import MeterReading, PowerSample, WeatherObs

_log = log.get("ingest")


class Ingestor:
    """Accepts batches from the API and keeps the store up to date."""

    def __init__(self, store, flush_interval_s=2.0, flush_max_items=5000, on_write=None):
        self.store = store
        self.flush_interval_s = flush_interval_s
        self.flush_max_items = flush_max_items
        self.on_write = on_write or (lambda sites: None)
        self._buffer = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flusher", daemon=True)

    def start(self):
        self._thread.start()

    def stop(self):
        """Stop the flusher and write what is buffered."""
        self._stop.set()
        self._thread.join(timeout=10)
        self.flush()

    def accept(self, feed, text):
        """Parse and queue one batch; returns a summary for the API response.

        Raises:
            parsers.FeedError: the batch cannot be read at all.
        """
        result = parsers.parse(feed, text)
        self.store.archive(feed, text)
        with self._lock:
            self._buffer.extend(result.records)
            full = len(self._buffer) >= self.flush_max_items
        if full:
            self.flush()
        self.store.count(f"batches_{feed}")
        self.store.count(f"records_{feed}", len(result.records))
        if result.rejected:
            self.store.count(f"rejected_{feed}", len(result.rejected))
            _log.warning("%s batch: %d line(s) rejected, first: %s", feed, len(result.rejected), result.rejected[0])
        return {"feed": feed, "accepted": len(result.records), "rejected": result.rejected[:20]}

    def flush(self):
        """Write the buffered records to the store."""
        with self._lock:
            records, self._buffer = self._buffer, []
        if not records:
            return 0
        meters = [r for r in records if isinstance(r, MeterReading)]
        samples = [r for r in records if isinstance(r, PowerSample)]
        observations = [r for r in records if isinstance(r, WeatherObs)]
        self.store.write_records(meters, samples, observations)
        self.on_write({r.site for r in records})
        _log.debug("flushed %d records", len(records))
        return len(records)

    def _run(self):
        while not self._stop.wait(self.flush_interval_s):
            try:
                self.flush()
            except Exception:  # keep flushing after a Redis hiccup
                _log.exception("flush failed")
