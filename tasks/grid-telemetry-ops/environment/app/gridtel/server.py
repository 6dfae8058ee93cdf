"""Entry point: ``python3 -m gridtel.server`` (configuration from the environment)."""

import signal
import sys
import threading

from gridtel import config as config_module
from gridtel import log
from gridtel.api import Service, serve
from gridtel.balance import Balances
from gridtel.ingest import Ingestor
from gridtel.metrics import Metrics
from gridtel.store import Store


def build(config):
    store = Store(config.redis_url, config.key_prefix)
    store.wait_ready()
    balances = Balances(store)
    ingestor = Ingestor(
        store,
        flush_interval_s=config.flush_interval_s,
        flush_max_items=config.flush_max_items,
        on_write=balances.invalidate,
    )
    return Service(config, store, ingestor, balances, Metrics())


def main(argv=None):
    del argv
    config = config_module.load()
    log.setup(config.log_level)
    service = build(config)
    service.ingestor.start()
    httpd = serve(service)
    stopping = threading.Event()

    def shutdown(signum, _frame):
        if stopping.is_set():
            return
        stopping.set()
        log.get("server").info("signal %d: flushing and stopping", signum)
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        service.ingestor.stop()
        httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
