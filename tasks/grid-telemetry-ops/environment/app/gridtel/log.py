"""Logging set-up: one line per event, to stderr (the supervisor appends it to a file)."""

import logging
import sys

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup(level="INFO"):
    """Configure the root logger once."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(_FORMAT))
    root.addHandler(handler)
    root.setLevel(getattr(logging, str(level).upper(), logging.INFO))


def get(name):
    return logging.getLogger(f"gridtel.{name}")
