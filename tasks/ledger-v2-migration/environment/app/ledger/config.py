"""Runtime settings, all from the environment.

LEDGER_DSN      libpq connection string of the ledger database (required)
LEDGER_TIMEOUT  statement timeout in seconds for report queries (default 120)
LEDGER_ECHO     when set, every SQL statement is printed to stderr (debugging)
"""

import os
from dataclasses import dataclass


class ConfigError(RuntimeError):
    """A required setting is missing or malformed."""


@dataclass(frozen=True)
class Settings:
    dsn: str
    statement_timeout_s: int = 120
    echo: bool = False


def load_settings(environ=None):
    env = os.environ if environ is None else environ
    dsn = env.get("LEDGER_DSN", "").strip()
    if not dsn:
        raise ConfigError("LEDGER_DSN is not set (e.g. 'host=db dbname=ledger user=ledger password=...')")
    try:
        timeout = int(env.get("LEDGER_TIMEOUT", "120"))
    except ValueError as exc:
        raise ConfigError(f"LEDGER_TIMEOUT must be an integer number of seconds: {exc}") from exc
    if timeout <= 0:
        raise ConfigError("LEDGER_TIMEOUT must be positive")
    return Settings(dsn=dsn, statement_timeout_s=timeout, echo=bool(env.get("LEDGER_ECHO")))
