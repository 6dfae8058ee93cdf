"""gridtel: the regional grid operator's telemetry ingestion and query service.

Feeds (substation meters, PV inverter gateways, weather stations) POST batches
to the ingest API; the service keeps its state in Redis and answers hourly
energy-balance queries. See docs/ for the contract and operations.
"""

__version__ = "2.3.1"
