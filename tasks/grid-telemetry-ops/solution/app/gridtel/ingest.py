"""Ingestion: parse a batch, then archive it and persist its records in one transaction.

A batch is acknowledged only after Redis has it: a crash after the answer loses nothing.
"""

from gridtel import log, parsers
from gridtel.model import MeterReading, PowerSample, WeatherObs

_log = log.get("ingest")


def split(records):
    meters = [r for r in records if isinstance(r, MeterReading)]
    samples = [r for r in records if isinstance(r, PowerSample)]
    observations = [r for r in records if isinstance(r, WeatherObs)]
    return meters, samples, observations


class Ingestor:
    """Accepts batches from the API and keeps the store up to date."""

    def __init__(self, store, flush_interval_s=2.0, flush_max_items=5000, on_write=None):
        del flush_interval_s, flush_max_items  # write-behind is gone: writes are synchronous
        self.store = store
        self.on_write = on_write or (lambda sites: None)

    def start(self):
        pass

    def stop(self):
        pass

    def accept(self, feed, text, archive=True):
        """Parse and persist one batch; returns a summary for the API response.

        Raises:
            parsers.FeedError: the batch cannot be read at all.
        """
        result = parsers.parse(feed, text)
        self.store.write_batch(feed, text, *split(result.records), archive=archive)
        self.on_write({r.site for r in result.records})
        if archive:
            self.store.count(f"batches_{feed}")
            self.store.count(f"records_{feed}", len(result.records))
        if result.rejected:
            self.store.count(f"rejected_{feed}", len(result.rejected))
            _log.warning("%s batch: %d line(s) rejected, first: %s", feed, len(result.rejected), result.rejected[0])
        return {"feed": feed, "accepted": len(result.records), "rejected": result.rejected[:20]}
